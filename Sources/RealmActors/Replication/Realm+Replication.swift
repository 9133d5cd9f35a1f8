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
        /// Random, chosen when the slot was created: a slot dropped and created again under the
        /// same name has another id. A consumer that records it (the PostgreSQL sink does, in
        /// its progress row) can tell its slot from a new one, or from another realm's.
        public let id: UInt64
        /// The newest version whose commits the consumer has confirmed; ``Realm/commits(since:)``
        /// starts after it.
        public var confirmedVersion: UInt64 { position.version }
        /// The slot's position with its identity: the version the consumer confirmed and the
        /// commit that made it. ``Realm/replicationSnapshot(forSlot:)`` reads the realm here.
        public let position: ReplicationPosition
        /// The commits the consumer has yet to confirm: what the slot holds in the file.
        public let backlog: ReplicationBacklog
        /// The bytes of older versions the slot alone would keep in the file: the pages the
        /// commits after its position stopped using. The slowest slot's is the file's
        /// ``Realm/FileStatistics/retainedBytes``.
        public let retainedBytes: Int
        /// The most the slot may keep, given when it was created; past either limit it is
        /// invalidated.
        public let limits: ReplicationRetentionLimits
        /// Why and when a retention limit invalidated the slot; nil while it is valid. An
        /// invalidated slot keeps nothing: ``Realm/commits(since:)`` throws
        /// ``Realm/Error/Code/replicationSlotInvalidated``, and its consumer must start again
        /// from a snapshot of a new slot.
        public let invalidation: ReplicationSlotInvalidation?
    }

    /// What a replication slot may keep before it is invalidated (PostgreSQL's
    /// `max_slot_wal_keep_size`): a consumer that is gone must not make the file grow forever.
    public struct ReplicationRetentionLimits: Sendable, Hashable {
        /// The most bytes of older versions the slot may keep (rounded up to whole pages); nil
        /// for no limit.
        public var maximumRetainedBytes: Int?
        /// The longest the oldest commit the consumer has not confirmed may have been made before
        /// a new commit; nil for no limit.
        public var maximumLag: Duration?

        /// Limits; both nil (the default) is no limit.
        public init(maximumRetainedBytes: Int? = nil, maximumLag: Duration? = nil) {
            self.maximumRetainedBytes = maximumRetainedBytes
            self.maximumLag = maximumLag
        }
    }

    /// Why and when a replication slot was invalidated.
    public struct ReplicationSlotInvalidation: Sendable, Hashable, CustomStringConvertible {
        /// Which limit the slot passed.
        public enum Reason: Sendable, Hashable {
            /// It kept more than ``ReplicationRetentionLimits/maximumRetainedBytes``.
            case retainedBytes
            /// Its oldest unconfirmed commit was older than ``ReplicationRetentionLimits/maximumLag``.
            case lag
        }
        /// Which limit the slot passed.
        public let reason: Reason
        /// When the commit that found it past the limit was made.
        public let date: Date

        /// A sentence for logs and errors.
        public var description: String {
            switch reason {
            case .retainedBytes: "invalidated at \(date) for keeping more than its maximum retained bytes"
            case .lag: "invalidated at \(date) for falling further behind than its maximum lag"
            }
        }
    }

    /// A point of a realm's history as a replication consumer keeps it: a version and the
    /// random id of the commit that made it. A version number alone does not name a point of
    /// the history — a realm restored from an older copy makes new commits under numbers the
    /// lost ones had — so a consumer stores both and resumes with ``Realm/commits(after:)``
    /// taking a position, which refuses one the realm's history does not hold.
    public struct ReplicationPosition: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The version.
        public let version: UInt64
        /// The id of the commit that made it (or, for a slot's first position when no commit
        /// record names it, the id the slot drew for it).
        public let commitID: UInt64

        /// A position, as a consumer stored it.
        public init(version: UInt64, commitID: UInt64) {
            self.version = version
            self.commitID = commitID
        }

        /// `version 42 (commit 3f9a…)`.
        public var description: String { "version \(version) (commit \(String(commitID, radix: 16)))" }
    }

    /// How a consumer's position relates to the realm's history: see
    /// ``Realm/replicationPositionStatus(_:)``.
    public enum ReplicationPositionStatus: Sendable, Hashable {
        /// The realm keeps that version, made by that commit: the commits after it can be read.
        case retained
        /// The realm no longer keeps the version (every slot has moved past it, or no slot is
        /// left), or has not made it yet.
        case notRetained
        /// The realm keeps a version of that number made by another commit: the position comes
        /// from another history (the realm was replaced by an older copy and written since, or
        /// it is another realm).
        case otherHistory
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
                let recorded = writer?.recordedPages ?? reader.meta.recordedPages
                return try slots.map { slot in
                    ReplicationSlot(slot, backlog: try backlog(after: slot.confirmed),
                                    retainedPages: recorded - min(recorded, slot.recordedAtPosition))
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
    /// first commit is this transaction's, and its consumer starts from a snapshot of the realm
    /// at that version (``replicationSnapshot(forSlot:)``). Call it inside a write transaction.
    ///
    /// - Parameters:
    ///   - name: 1 to 63 ASCII letters, digits and underscores, unique in the realm.
    ///   - limits: the most the slot may keep for a consumer that falls behind; past a limit the
    ///     first commit invalidates it (see ``ReplicationSlot/invalidation``). No limit by
    ///     default.
    /// - Throws: ``Realm/Error/Code/invalidInput`` for a malformed or taken name, or a limit
    ///   that is not positive.
    public func createReplicationSlot(named name: String, limits: ReplicationRetentionLimits = ReplicationRetentionLimits()) throws {
        let pageSize = PageLayout.pageSize
        var pages: UInt64 = 0, lag: UInt64 = 0
        if let bytes = limits.maximumRetainedBytes {
            guard bytes > 0 else { throw Realm.Error(.invalidInput, "A replication slot's maximum retained bytes must be positive, not \(bytes)") }
            pages = UInt64((bytes + pageSize - 1) / pageSize)
        }
        if let maximumLag = limits.maximumLag {
            let (seconds, attoseconds) = maximumLag.components
            guard maximumLag > .zero, seconds < Int64.max / 1_000_000_000 else {
                throw Realm.Error(.invalidInput, "A replication slot's maximum lag must be positive and under 292 years, not \(maximumLag)")
            }
            lag = max(1, UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000))  // 0 would be no limit
        }
        try replicating { try $0.createReplicationSlot(named: name, maximumRetainedPages: pages, maximumLag: lag) }
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
    /// consumer that restarts resumes after its last confirmation. A new slot's consumer reads
    /// the realm at the slot's position first (``replicationSnapshot(forSlot:)``): the commits
    /// are what changed since.
    ///
    /// - Throws: from iteration, ``Realm/Error/Code/invalidInput`` if no slot has the name,
    ///   ``Realm/Error/Code/replicationSlotInvalidated`` if a retention limit invalidated it.
    public func commits(since slot: String) -> Commits {
        Commits(file: file, configuration: configuration, start: .slot(slot))
    }

    /// The commits after `position`, which must be a point of this realm's retained history
    /// (``replicationPositionStatus(_:)``): what a consumer that stored its position with what
    /// it applied (a ``Commit/position``, or a snapshot's) resumes from. See ``commits(since:)``.
    ///
    /// - Throws: from iteration, ``Realm/Error/Code/replicationPositionLost`` if the realm does
    ///   not keep that version, or a version of that number was made by another commit — the
    ///   commits after it would not be those the consumer lacks.
    public func commits(after position: ReplicationPosition) -> Commits {
        Commits(file: file, configuration: configuration, start: .position(position))
    }

    /// The commits after `version`, which a replication slot must still retain (at or after the
    /// oldest slot's position): see ``commits(since:)``. Prefer ``commits(after:)-(ReplicationPosition)``,
    /// which also checks that the version is the commit the consumer applied.
    ///
    /// - Throws: from iteration, ``Realm/Error/Code/replicationPositionLost`` if the realm does
    ///   not keep the version (no slot's position is at or before it) or has not made it.
    public func commits(after version: UInt64) -> Commits {
        Commits(file: file, configuration: configuration, start: .version(version))
    }

    /// Whether the realm keeps `position`, made by the same commit: whether a consumer there can
    /// go on with ``commits(after:)-(ReplicationPosition)``, and if not, why.
    ///
    /// - Throws: ``Realm/Error`` if the file is damaged.
    public func replicationPositionStatus(_ position: ReplicationPosition) throws -> ReplicationPositionStatus {
        do {
            return try Self.status(of: position, in: file.database.beginRead())
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
    }

    static func status(of position: ReplicationPosition, in newest: ReadTransaction) throws -> ReplicationPositionStatus {
        switch try newest.replicationPosition(position.version, commit: position.commitID) {
        case .retained: .retained
        case .notRetained: .notRetained
        case .otherHistory: .otherHistory
        }
    }

    /// The realm as it was at the slot's position, and that position: what a new slot's
    /// consumer loads first (PostgreSQL's initial snapshot), then goes on from with
    /// ``commits(after:)-(ReplicationPosition)``. The slot keeps that version in the file until
    /// the consumer confirms past it, so the snapshot is consistent however long loading takes
    /// and however many commits are made meanwhile; read it in bounded memory by iterating its
    /// results (`snapshot.realm.objects(className)`), which load objects as they are reached.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` if no slot has the name,
    ///   ``Realm/Error/Code/replicationSlotInvalidated`` if a retention limit invalidated it.
    public func replicationSnapshot(forSlot name: String) throws -> ReplicationSnapshot {
        do {
            let newest = try file.database.beginRead()
            let slot = try Self.slot(named: name, in: newest)
            let version = try CommitChangeSet.frozenVersion(of: file, at: slot.confirmed, reusing: nil)
            return ReplicationSnapshot(slotName: slot.name, slotID: slot.id,
                                       position: ReplicationPosition(version: slot.confirmed, commitID: slot.confirmedCommit),
                                       realm: FrozenRealm(snapshot: FrozenSnapshot(configuration: configuration, version: version)))
        } catch let error as Realm.Error {
            throw error
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
    }

    /// The valid slot named `name` at `newest`.
    /// - Throws: `invalidInput` if there is none; `replicationSlotInvalidated` if it is invalidated.
    static func slot(named name: String, in newest: ReadTransaction) throws -> RealmStorage.ReplicationSlot {
        guard let slot = try newest.replicationSlots().first(where: { $0.name == name }) else {
            throw Realm.Error(.invalidInput, "There is no replication slot named '\(name)'")
        }
        if slot.isInvalidated, let invalidation = ReplicationSlotInvalidation(slot) {
            throw Realm.Error(.replicationSlotInvalidated, "Replication slot '\(name)' was \(invalidation): it keeps nothing for its consumer, which must start again from a snapshot (drop the slot and create it again)")
        }
        return slot
    }

    /// A realm as it was at a replication slot's position, for its consumer to load before the
    /// commits after it: see ``Realm/replicationSnapshot(forSlot:)``.
    public struct ReplicationSnapshot: Sendable {
        /// The slot's name.
        public let slotName: String
        /// The slot's id (``ReplicationSlot/id``).
        public let slotID: UInt64
        /// The version the snapshot reads, with its identity: store it with what was loaded, and
        /// go on with ``Realm/commits(after:)-(ReplicationPosition)``.
        public let position: ReplicationPosition
        /// The realm at ``position``: every object as it was then.
        public let realm: FrozenRealm
    }

    /// One commit, as a replication consumer reads it.
    public struct Commit: Sendable {
        /// The version the commit made.
        public let version: UInt64
        /// The commit's random id: with ``version``, its ``position``.
        public let commitID: UInt64
        /// The point of the realm's history the commit made: what a consumer stores with what it
        /// applied, and resumes from with ``Realm/commits(after:)-(ReplicationPosition)``.
        public var position: ReplicationPosition { ReplicationPosition(version: version, commitID: commitID) }
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
            case position(ReplicationPosition)
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
            /// The slot a ``Realm/commits(since:)`` sequence follows: a gap met later is
            /// reported as its invalidation, if that is the cause.
            var slotName: String?
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
                        let newest = try file.database.beginRead()
                        switch start {
                        case .version(let version): position = version
                        case .position(let start):
                            switch try Realm.status(of: start, in: newest) {
                            case .retained: position = start.version
                            case .notRetained:
                                throw Realm.Error(.replicationPositionLost, "The realm no longer keeps \(start) (no replication slot's position is at or before it, or it is newer than the newest version \(newest.transaction)): the commits after it cannot all be read. Start again from a snapshot.")
                            case .otherHistory:
                                throw Realm.Error(.replicationPositionLost, "\(start) is not a point of this realm's history: a commit with another id made that version (the realm was replaced by an older copy and written since, or it is another realm). Start again from a snapshot.")
                            }
                        case .slot(let name):
                            position = try Realm.slot(named: name, in: newest).confirmed
                            slotName = name
                        }
                        self.start = nil
                        signal = NewVersionSignal(file: file)
                    }
                    while pending.isEmpty {
                        if Task.isCancelled { return [] }
                        // The newest durable version before reading: a commit after it wakes the wait.
                        let newest = file.database.latestTransaction
                        do {
                            pending = try CommitChangeSet.commits(of: file, after: position, limit: Swift.max(16, maximumCount))
                        } catch let error as StorageError where error.code == .invalidInput {
                            // An invalidated slot moved past its consumer: say so rather than
                            // "not retained".
                            if let slotName { _ = try Realm.slot(named: slotName, in: file.database.beginRead()) }
                            throw Realm.Error(.replicationPositionLost, error.message, fileURL: configuration.fileURL)
                        }
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
        commitID = changeSet.commitID
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

extension Realm.ReplicationSlot {
    init(_ slot: ReplicationSlot, backlog: Realm.ReplicationBacklog, retainedPages: UInt64) {
        name = slot.name
        id = slot.id
        position = Realm.ReplicationPosition(version: slot.confirmed, commitID: slot.confirmedCommit)
        self.backlog = backlog
        retainedBytes = Int(clamping: retainedPages) &* PageLayout.pageSize
        limits = Realm.ReplicationRetentionLimits(
            maximumRetainedBytes: slot.maximumRetainedPages == 0 ? nil : Int(clamping: slot.maximumRetainedPages) &* PageLayout.pageSize,
            maximumLag: slot.maximumLag == 0 ? nil : .nanoseconds(Int64(clamping: slot.maximumLag)))
        invalidation = Realm.ReplicationSlotInvalidation(slot)
    }
}

extension Realm.ReplicationSlotInvalidation {
    /// The invalidation a stored slot records; nil for a valid slot.
    init?(_ slot: ReplicationSlot) {
        switch slot.invalidation {
        case .none: return nil
        case .retainedPages: reason = .retainedBytes
        case .lag: reason = .lag
        }
        date = Date(timeIntervalSince1970: Double(slot.invalidatedAt) / 1e9)
    }
}
