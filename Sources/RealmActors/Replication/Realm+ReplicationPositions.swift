import Foundation
internal import RealmRuntime

// Where a replication consumer stands: positions with their identity, whether the realm's history
// still holds one, and the snapshot a new slot's consumer loads first.
extension Realm {
    /// A point of a realm's history as a replication consumer keeps it: a version and the
    /// random id of the commit that made it. A version number alone does not name a point of
    /// the history — a realm restored from an older copy makes new commits under numbers the
    /// lost ones had — so a consumer stores both and resumes with ``Realm/commits(after:)-(Realm.ReplicationPosition)``
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

    /// Whether the realm keeps `position`, made by the same commit: whether a consumer there can
    /// go on with ``commits(after:)-(Realm.ReplicationPosition)``, and if not, why.
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
    /// ``commits(after:)-(Realm.ReplicationPosition)``. The slot keeps that version in the file until
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
        let slot = try newest.replicationSlots().slot(named: name)
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
        /// go on with ``Realm/commits(after:)-(Realm.ReplicationPosition)``.
        public let position: ReplicationPosition
        /// The realm at ``position``: every object as it was then.
        public let realm: FrozenRealm
    }
}
