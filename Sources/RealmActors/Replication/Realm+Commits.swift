public import Foundation
internal import RealmRuntime

// A slot's commits as a consumer reads them: the `Commits` sequence (and its batches), each
// `Commit` with its changes per class and its schema changes, and the keys replicated objects
// are known by.
extension Realm {
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
    /// oldest slot's position): see ``commits(since:)``. Prefer ``commits(after:)-(Realm.ReplicationPosition)``,
    /// which also checks that the version is the commit the consumer applied.
    ///
    /// - Throws: from iteration, ``Realm/Error/Code/replicationPositionLost`` if the realm does
    ///   not keep the version (no slot's position is at or before it) or has not made it.
    public func commits(after version: UInt64) -> Commits {
        Commits(file: file, configuration: configuration, start: .version(version))
    }

    /// One commit, as a replication consumer reads it.
    public struct Commit: Sendable {
        /// The version the commit made.
        public let version: UInt64
        /// The commit's random id: with ``version``, its ``position``.
        public let commitID: UInt64
        /// The point of the realm's history the commit made: what a consumer stores with what it
        /// applied, and resumes from with ``Realm/commits(after:)-(Realm.ReplicationPosition)``.
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
        /// What the commit changed in the schema — empty but for migrations and new classes.
        /// Apply these before ``changes``: a migration writes no change for most of what it
        /// does (a property added to existing objects, a rename), so these alone tell a
        /// consumer what the objects it is not sent now hold.
        public let schemaChanges: [SchemaChange]
    }

    /// A change one commit made to the schema, as a replication consumer applies it to its copy
    /// (``Commit/schemaChanges``). Read the new definitions from the commit's realm
    /// (`commit.realm.schema`).
    public enum SchemaChange: Sendable, Hashable {
        /// The commit created the class (its objects, if any, are the commit's inserts).
        case classAdded(String)
        /// The commit removed the class and its objects (its ``ClassChanges/deletedAll``).
        case classRemoved(String)
        /// The class stayed, but its primary key changed, or whether it is embedded: no change of
        /// columns expresses that. Reload the class from the commit's realm.
        case classRestructured(String)
        /// A new property: existing objects hold its default (the type's zero value, empty, or
        /// nil), except those the commit wrote, which are among its modifications.
        case propertyAdded(className: String, property: String)
        /// A property and its values are gone.
        case propertyRemoved(className: String, property: String)
        /// A property kept its values under another name (`Migration.renameProperty`).
        case propertyRenamed(className: String, from: String, to: String)
        /// A property's values were stored anew: its type, optionality or collection changed.
        /// Objects the commit wrote are among its modifications; the others hold the new type's
        /// default.
        case propertyTypeChanged(className: String, property: String)
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
        schemaChanges = changeSet.schemaChanges.map(Realm.SchemaChange.init)
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
extension Realm.SchemaChange {
    init(_ change: SchemaChange) {
        switch change {
        case .classAdded(let name): self = .classAdded(name)
        case .classRemoved(let name): self = .classRemoved(name)
        case .classRestructured(let name): self = .classRestructured(name)
        case .propertyAdded(let className, let property): self = .propertyAdded(className: className, property: property)
        case .propertyRemoved(let className, let property): self = .propertyRemoved(className: className, property: property)
        case .propertyRenamed(let className, let from, let to): self = .propertyRenamed(className: className, from: from, to: to)
        case .propertyTypeChanged(let className, let property): self = .propertyTypeChanged(className: className, property: property)
        }
    }
}
