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
        /// Which limit the slot passed, or that an operator asked for a resynchronization.
        public enum Reason: Sendable, Hashable {
            /// It kept more than ``ReplicationRetentionLimits/maximumRetainedBytes``.
            case retainedBytes
            /// Its oldest unconfirmed commit was older than ``ReplicationRetentionLimits/maximumLag``.
            case lag
            /// An operator asked its consumer to start again from a snapshot
            /// (``Realm/requestResynchronization(ofReplicationSlotNamed:)``, `realm-inspect
            /// resync-slot`). A consumer that knows this reason drops the slot, creates it again
            /// and loads a snapshot of the new one (the PostgreSQL sink does, on its next start)
            /// rather than stop.
            case resynchronizationRequested
        }
        /// Which limit the slot passed, or that an operator asked for a resynchronization.
        public let reason: Reason
        /// When the commit that found it past the limit (or that asked) was made.
        public let date: Date

        /// A sentence for logs and errors.
        public var description: String {
            switch reason {
            case .retainedBytes: "invalidated at \(date) for keeping more than its maximum retained bytes"
            case .lag: "invalidated at \(date) for falling further behind than its maximum lag"
            case .resynchronizationRequested: "invalidated at \(date) by an operator's request for a resynchronization"
            }
        }
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
                                    retainedPages: slot.isInvalidated ? 0 : recorded - min(recorded, slot.recordedAtPosition))
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

    /// Asks the slot's consumer to start again from a snapshot: invalidates the slot with the
    /// reason ``ReplicationSlotInvalidation/Reason/resynchronizationRequested`` (`realm-inspect
    /// resync-slot` does the same from the shell). From this commit on the slot keeps nothing
    /// (the space it held is freed) and ``commits(since:)`` refuses it as any invalidated slot;
    /// a consumer that knows the reason — the PostgreSQL sink, on its next start — drops it,
    /// creates it again with the same limits and loads a snapshot of the new one, instead of
    /// stopping. Works on a slot a retention limit invalidated too (the reason is replaced);
    /// asking again changes nothing. Call it inside a write transaction.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` if no slot has the name.
    public func requestResynchronization(ofReplicationSlotNamed name: String) throws {
        try replicating { try $0.requestResynchronization(ofSlotNamed: name) }
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
        case .resynchronizationRequested: reason = .resynchronizationRequested
        }
        date = Date(timeIntervalSince1970: Double(slot.invalidatedAt) / 1e9)
    }
}
