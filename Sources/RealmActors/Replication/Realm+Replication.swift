public import Foundation
internal import RealmRuntime

/// Replication: slots that keep a realm's commits for a consumer, and the commits themselves as
/// change sets — what a sink (the Integrations package's PostgreSQL sink, say) applies elsewhere.
///
/// A slot is a named position in the file's history (PostgreSQL's replication slot): the newest
/// version its consumer has confirmed. While it exists, every commit keeps a record of what it
/// changed, and the versions after the slot's position stay readable — across restarts — until
/// the consumer confirms them. A consumer that was down resumes exactly where it stopped.
///
/// ```swift
/// try await realm.asyncWrite { try realm.createReplicationSlot(named: "warehouse") }
/// for try await commit in realm.commits(since: "warehouse") {
///     try await apply(commit)                     // in one transaction elsewhere
///     try await realm.asyncWrite { try realm.confirmReplicationSlot(named: "warehouse", through: commit.version) }
/// }
/// ```
///
/// The versions a slot retains keep their pages in the file: a consumer that stops confirming
/// makes the file grow (``Realm/FileStatistics/retainedBytes``). Drop a slot nobody reads.
extension Realm {
    /// A replication slot: a named consumer's position in the realm's history.
    public struct ReplicationSlot: Sendable, Hashable {
        /// The slot's name.
        public let name: String
        /// The newest version whose commits the consumer has confirmed; ``Realm/commits(since:)``
        /// starts after it.
        public let confirmedVersion: UInt64
        /// The commits the consumer has yet to confirm: what the slot holds in the file.
        public let backlog: ReplicationBacklog
    }

    /// The commits after a version — those a consumer at that version has yet to apply: how
    /// many, and how long ago the oldest was made.
    ///
    /// Versions are not commit counts (the first commit after an open jumps ahead), so a
    /// difference of versions is not a backlog; this is.
    public struct ReplicationBacklog: Sendable, Hashable {
        /// How many commits there are. Commits that changed no object and no schema (one that
        /// only confirms a slot, say) are not counted: they are not delivered.
        public let commits: Int
        /// When the oldest of them was made; nil when there are none.
        public let oldestCommitTime: Date?

        /// How far behind a consumer at the backlog's version is: the time since the oldest
        /// commit it has not applied was made — what it holds is the realm as it was then — or
        /// zero when it has applied every commit.
        public func lag(at now: Date = .now) -> TimeInterval {
            oldestCommitTime.map { max(0, now.timeIntervalSince($0)) } ?? 0
        }
    }

    /// The replication slots of the realm, at the handle's version, with each one's backlog.
    ///
    /// - Complexity: per slot, O(log commits) plus the commits between the slowest slot's
    ///   position and its own.
    /// - Throws: ``Realm/Error`` if the file is damaged.
    public var replicationSlots: [ReplicationSlot] {
        get throws {
            do {
                let slots = try writer.map { try $0.replicationSlots() } ?? reader.replicationSlots()
                return try slots.map { slot in
                    ReplicationSlot(name: slot.name, confirmedVersion: slot.confirmed, backlog: try backlog(after: slot.confirmed))
                }
            } catch {
                throw Realm.Error.from(error, configuration: configuration)
            }
        }
    }

    /// The commits after `version` that a replication slot keeps, at the handle's version: what
    /// a consumer that has applied through `version` (more than its slot has confirmed,
    /// perhaps) has left to apply.
    ///
    /// - Complexity: O(log commits) plus the kept commits at or before `version`.
    /// - Throws: ``Realm/Error`` if the file is damaged.
    public func replicationBacklog(after version: UInt64) throws -> ReplicationBacklog {
        do {
            return try backlog(after: version)
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
    }

    private func backlog(after version: UInt64) throws -> ReplicationBacklog {
        let backlog = try writer.map { try $0.replicationBacklog(after: version) } ?? reader.replicationBacklog(after: version)
        return ReplicationBacklog(commits: backlog.commits,
                                  oldestCommitTime: backlog.oldestCommitTime.map { Date(timeIntervalSince1970: Double($0) / 1e9) })
    }

    /// Creates a replication slot at the version this write transaction builds on: the slot's
    /// first commit is this transaction's. Call it inside a write transaction.
    ///
    /// - Parameter name: 1 to 63 ASCII letters, digits and underscores, unique in the realm.
    /// - Throws: ``Realm/Error/Code/invalidInput`` for a malformed or taken name.
    public func createReplicationSlot(named name: String) throws {
        try replicating { try $0.createReplicationSlot(named: name) }
    }

    /// Drops a replication slot; the versions only it retained are freed when the write
    /// transaction commits. Call it inside a write transaction.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` if no slot has the name.
    public func dropReplicationSlot(named name: String) throws {
        try replicating { try $0.dropReplicationSlot(named: name) }
    }

    /// Records that the slot's consumer has applied every commit through `version`; the versions
    /// no slot needs any more are freed when the write transaction commits. Confirming a version
    /// at or before the slot's position changes nothing. Call it inside a write transaction.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` if no slot has the name, or `version` is
    ///   newer than the realm's newest commit.
    public func confirmReplicationSlot(named name: String, through version: UInt64) throws {
        try replicating { try $0.confirmReplicationSlot(named: name, through: version) }
    }

    private func replicating(_ body: (WriteTransaction) throws -> Void) throws {
        let write = requireWrite()
        do {
            try body(write)
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
    }

    /// The commits after the slot's position, oldest first: those made before the call, then
    /// each new one as it becomes durable. The sequence ends when its task is cancelled.
    ///
    /// Each ``Commit`` is computed, when the sequence reaches it, from the commit's record and
    /// the two versions around it — never on the writers' path. The sequence does not move the
    /// slot: confirm what was applied with ``confirmReplicationSlot(named:through:)``, and a
    /// consumer that restarts resumes after its last confirmation.
    ///
    /// - Throws: from iteration, ``Realm/Error/Code/invalidInput`` if no slot has the name.
    public func commits(since slot: String) -> Commits {
        Commits(file: file, configuration: configuration, start: .slot(slot))
    }

    /// The commits after `version`, which a replication slot must still retain (at or after the
    /// oldest slot's position): see ``commits(since:)``.
    public func commits(after version: UInt64) -> Commits {
        Commits(file: file, configuration: configuration, start: .version(version))
    }

    /// One commit, as a replication consumer reads it.
    public struct Commit: Sendable {
        /// The version the commit made.
        public let version: UInt64
        /// The version it was built on.
        public let previousVersion: UInt64
        /// When the commit was made.
        public let commitTime: Date
        /// What it changed, per class (classes it did not change are absent; classes it
        /// dropped first). Embedded objects are not listed on their own: a change to one is a
        /// modification of the top-level object it lives in, in the property that leads to it.
        public let changes: [ClassChanges]
        /// The realm at ``version``: every object as the commit left it.
        public let realm: FrozenRealm
    }

    /// The objects one commit changed in one class.
    public struct ClassChanges: Sendable {
        /// The class.
        public let className: String
        /// Whether the commit deleted every object the class had before it at once, by
        /// dropping the class's table: a migration that removed the class after
        /// `Migration.deleteData(forType:)`, or `deleteRealmIfMigrationNeeded`. Those objects are
        /// not in ``deleted``; apply this first. The class is gone if the commit's realm has no
        /// schema for it (`commit.realm.schema[className] == nil`); otherwise ``inserted`` holds
        /// its objects after the commit.
        public let deletedAll: Bool
        /// The objects the commit created, in key order.
        public let inserted: [ObjectChange]
        /// The objects the commit modified, with the properties it wrote.
        public let modified: [ObjectChange]
        /// The keys of the objects the commit deleted.
        public let deleted: [ObjectKey]
    }

    /// An object a commit created or modified.
    public struct ObjectChange: Sendable {
        /// The object's key: its primary key, or its object key if its class has none.
        public let key: ObjectKey
        /// The properties the commit wrote (every property, for a created object).
        public let changedProperties: [String]
        /// The object as the commit left it (read its properties by name: `object.read { $0["name"] }`).
        public let object: Frozen<DynamicObject>
    }

    /// How a replicated object is identified: by its primary key, or, in a class without one, by
    /// the object key the realm gave it (stable for the object's life, never reused while the
    /// realm keeps the class).
    public enum ObjectKey: Sendable, Hashable {
        /// An integer primary key.
        case int(Int)
        /// A string primary key.
        case string(String)
        /// An `ObjectId` primary key.
        case objectId(ObjectId)
        /// A `UUID` primary key.
        case uuid(UUID)
        /// A `nil` primary key (an optional primary-key property).
        case null
        /// The object key of an object whose class has no primary key.
        case objectKey(UInt64)
    }

    /// The commits of ``Realm/commits(since:)``: an `AsyncSequence` of ``Realm/Commit``s.
    public struct Commits: AsyncSequence, Sendable {
        /// A commit.
        public typealias Element = Commit
        enum Start: Sendable {
            case slot(String)
            case version(UInt64)
        }
        let file: SharedRealmFile
        let configuration: Realm.Configuration
        let start: Start

        /// A new iterator, starting at the sequence's start.
        public func makeAsyncIterator() -> Iterator {
            Iterator(file: file, configuration: configuration, start: start)
        }

        /// The same commits in batches: each the commits already made, up to `maximumCount`
        /// (one when the consumer keeps up) — what a consumer that has fallen behind applies in
        /// one transaction on the other side (see ``Iterator/nextBatch(maximumCount:)``).
        public func batched(maximumCount: Int) -> Batches {
            Batches(commits: self, maximumCount: maximumCount)
        }

        /// ``Realm/Commits`` in batches: an `AsyncSequence` of non-empty arrays of commits.
        public struct Batches: AsyncSequence, Sendable {
            /// A batch of commits, oldest first.
            public typealias Element = [Commit]
            let commits: Commits
            let maximumCount: Int

            /// A new iterator, starting at the sequence's start.
            public func makeAsyncIterator() -> Iterator {
                Iterator(commits: commits.makeAsyncIterator(), maximumCount: maximumCount)
            }

            /// The iterator of ``Realm/Commits/Batches``.
            public struct Iterator: AsyncIteratorProtocol {
                var commits: Commits.Iterator
                let maximumCount: Int

                /// The next batch, waiting for a commit if none is left; nil once the task is
                /// cancelled.
                public mutating func next() async throws -> [Commit]? {
                    let batch = try await commits.nextBatch(maximumCount: maximumCount)
                    return batch.isEmpty ? nil : batch
                }
            }
        }

        /// The iterator of ``Realm/Commits``.
        public struct Iterator: AsyncIteratorProtocol {
            let file: SharedRealmFile
            let configuration: Realm.Configuration
            var start: Start?
            var position: UInt64 = 0
            var pending: [CommitChangeSet] = []
            var signal: NewVersionSignal?

            init(file: SharedRealmFile, configuration: Realm.Configuration, start: Start) {
                self.file = file
                self.configuration = configuration
                self.start = start
            }

            /// The next commit, waiting for one if none is left; nil once the task is cancelled.
            public mutating func next() async throws -> Commit? {
                try await nextBatch(maximumCount: 1).first
            }

            /// The next commits: at least one (waiting for one if none is left), and up to
            /// `maximumCount` of those already made — what a consumer applies together, in one
            /// transaction on the other side, when it has fallen behind. Empty once the task is
            /// cancelled.
            public mutating func nextBatch(maximumCount: Int) async throws -> [Commit] {
                do {
                    if let start {
                        switch start {
                        case .version(let version): position = version
                        case .slot(let name):
                            let reader = try file.database.beginRead()
                            guard let slot = try reader.replicationSlots().first(where: { $0.name == name }) else {
                                throw Realm.Error(.invalidInput, "There is no replication slot named '\(name)'")
                            }
                            position = slot.confirmed
                        }
                        self.start = nil
                        signal = NewVersionSignal(file: file)
                    }
                    while pending.isEmpty {
                        if Task.isCancelled { return [] }
                        // The newest durable version before reading: a commit after it wakes the wait.
                        let newest = file.database.latestTransaction
                        pending = try CommitChangeSet.commits(of: file, after: position, limit: Swift.max(16, maximumCount))
                        if pending.isEmpty {
                            guard await signal?.wait(after: newest) == true else { return [] }
                        }
                    }
                    let taken = pending.prefix(Swift.max(1, maximumCount))
                    pending.removeFirst(taken.count)
                    position = taken.last!.version.transaction
                    return taken.map { Commit($0, configuration: configuration) }
                } catch let error as Realm.Error {
                    throw error
                } catch {
                    throw Realm.Error.from(error, configuration: configuration)
                }
            }
        }
    }
}

extension Realm.Commit {
    init(_ changeSet: CommitChangeSet, configuration: Realm.Configuration) {
        version = changeSet.version.transaction
        previousVersion = changeSet.base.transaction
        commitTime = changeSet.commitTime
        let after = FrozenSnapshot(configuration: configuration, version: changeSet.version)
        let before = FrozenSnapshot(configuration: configuration, version: changeSet.base)
        realm = FrozenRealm(snapshot: after)
        changes = changeSet.classes.map { changes in
            func object(_ key: UInt64) -> Frozen<DynamicObject>? {
                changeSet.version.catalog.tables[changes.className].map { Frozen(snapshot: after, table: $0, key: key) }
            }
            func identity(_ key: UInt64, in snapshot: FrozenSnapshot) -> Realm.ObjectKey {
                guard let table = snapshot.version.catalog.tables[changes.className], let primaryKey = table.schema.primaryKey else {
                    return .objectKey(key)
                }
                return Realm.ObjectKey(primaryKey: Frozen<DynamicObject>(snapshot: snapshot, table: table, key: key).read { $0[primaryKey.name] })
            }
            let properties = changeSet.version.catalog.tables[changes.className]?.schema.properties.map(\.name) ?? []
            return Realm.ClassChanges(
                className: changes.className,
                deletedAll: changes.deletedAll,
                inserted: changes.inserted.compactMap { key in
                    object(key).map { Realm.ObjectChange(key: identity(key, in: after), changedProperties: properties, object: $0) }
                },
                modified: changes.modified.compactMap { change in
                    object(change.key).map { Realm.ObjectChange(key: identity(change.key, in: after), changedProperties: change.properties, object: $0) }
                },
                deleted: changes.deleted.map { identity($0, in: before) })
        }
    }
}

extension Realm.ObjectKey {
    /// The key under which ``Realm/commits(since:)`` identifies `object`: its primary key, or,
    /// for a managed object of a class without one, its object key — what a sink writes for a
    /// link to it. nil for an unmanaged object of a class without a primary key, and for an
    /// invalidated one.
    public init?(_ object: ObjectBase) {
        if let primaryKey = object.objectSchema.primaryKeyProperty {
            guard !object.isInvalidated else { return nil }
            self.init(primaryKey: object[primaryKey.name])
        } else {
            guard let state = object.realmState, !object.isInvalidated else { return nil }
            self = .objectKey(state.key)
        }
    }

    /// The key of a primary-key value (`nil`, or a value of a type that cannot be a primary
    /// key, is ``null``).
    init(primaryKey value: Any?) {
        switch value {
        case let value as Int: self = .int(value)
        case let value as String: self = .string(value)
        case let value as ObjectId: self = .objectId(value)
        case let value as UUID: self = .uuid(value)
        default: self = .null
        }
    }
}
