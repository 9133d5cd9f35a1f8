import Foundation
import Logging
import PostgresNIO
import RealmActors

/// A slot's row of `realm_replication_progress`: what PostgreSQL holds of the realm, and whose.
///
/// ```sql
/// CREATE TABLE realm_replication_progress (
///     slot       text PRIMARY KEY,  -- the realm's slot name
///     version    bigint NOT NULL,   -- the position PostgreSQL holds: its version …
///     slot_id    bigint,            -- the slot's random id (Realm.ReplicationSlot.id)
///     commit_id  bigint,            -- … and the id of the commit that made it
///     realm_path text,              -- the realm file the sink replicated, for people to read
///     loaded_at  timestamptz        -- when the initial snapshot (or the last resync) was loaded
/// )
/// ```
///
/// The realm's ids and versions are `UInt64`; PostgreSQL has no unsigned type, so they are
/// stored as the `bigint` of the same bit pattern (`Int64(bitPattern:)`): a value at or past
/// 2^63 reads as negative in SQL. Compare them for equality only; versions, which stay far below
/// 2^63, also order correctly. The row is written by the initial snapshot's transaction and then
/// by every applied batch's, so it always describes the rows beside it. `slot_id` and
/// `commit_id` are null only in a row a sink from before they existed wrote (the columns are
/// added to such a table on start).
struct ReplicationProgress: Sendable, Equatable {
    /// The slot's id; nil in a row from a sink that did not record it.
    var slotID: UInt64?
    /// The position PostgreSQL holds; its commit id is 0 in a row without identity.
    var position: Realm.ReplicationPosition
    /// The realm file the row was written for, as its sink saw it (nil if not recorded).
    var realmPath: String?

    static let table = "realm_replication_progress"

    /// Creates the table, or adds the identity columns to one an older sink made.
    static let creation: [PostgresQuery] = [
        PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(table) (slot text PRIMARY KEY, version bigint NOT NULL)"),
        PostgresQuery(unsafeSQL: """
            ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS slot_id bigint, ADD COLUMN IF NOT EXISTS commit_id bigint, \
            ADD COLUMN IF NOT EXISTS realm_path text, ADD COLUMN IF NOT EXISTS loaded_at timestamptz
            """),
    ]

    /// The slot's row, or nil; with `lock`, locked until the transaction ends (`FOR UPDATE`).
    static func read(slot: String, lock: Bool = false, on connection: PostgresConnection, logger: Logger) async throws -> ReplicationProgress? {
        let query: PostgresQuery = lock
            ? "SELECT slot_id, version, commit_id, realm_path FROM realm_replication_progress WHERE slot = \(slot) FOR UPDATE"
            : "SELECT slot_id, version, commit_id, realm_path FROM realm_replication_progress WHERE slot = \(slot)"
        let rows = try await connection.query(query, logger: logger)
        for try await (slotID, version, commitID, path) in rows.decode((Int64?, Int64, Int64?, String?).self) {
            return ReplicationProgress(slotID: slotID.map { UInt64(bitPattern: $0) },
                                       position: Realm.ReplicationPosition(version: UInt64(bitPattern: version),
                                                                           commitID: UInt64(bitPattern: commitID ?? 0)),
                                       realmPath: path)
        }
        return nil
    }

    /// The slot's row, locked until the transaction ends (as every batch's transaction does
    /// first), checked to be still the one the start checked or wrote, with `slotID`: else
    /// PostgreSQL changed under the running sink (``ReplicationSinkError/Reason/progressChanged``).
    ///
    /// The row is also checked to be at or past `applied`, the version this sink has seen
    /// PostgreSQL commit: a row behind it means PostgreSQL was restored under the sink (a
    /// backup, a point-in-time restore, a failover), and applying after the row's position would
    /// skip the commits between — so it throws ``PostgresReplicationSink/ProgressMovedBack``,
    /// and the run starts again, checking the row against the realm (resumes from it, or stops:
    /// `postgresBehind`).
    static func lock(slot: String, slotID: UInt64?, notBehind applied: UInt64,
                     on connection: PostgresConnection, logger: Logger) async throws -> ReplicationProgress {
        let progress = try await read(slot: slot, lock: true, on: connection, logger: logger)
        guard let progress, let slotID, progress.slotID == slotID else {
            throw ReplicationSinkError(.progressChanged, """
                PostgreSQL's progress row for slot '\(slot)' \(progress == nil ? "vanished" : "changed its slot id") while the sink \
                was running: it was deleted (to ask for a resynchronization?), another sink resynchronized the slot, or \
                PostgreSQL was restored under the running sink. Restart the sink: it checks the row again, or loads a \
                snapshot if there is none.
                """)
        }
        guard progress.position.version >= applied else { throw PostgresReplicationSink.ProgressMovedBack(position: progress.position) }
        return progress
    }

    /// Replaces the slot's row with this one (the initial snapshot's), stamped `loaded_at`.
    func insert(slot: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("DELETE FROM realm_replication_progress WHERE slot = \(slot)", logger: logger)
        try await connection.query("""
            INSERT INTO realm_replication_progress (slot, version, slot_id, commit_id, realm_path, loaded_at) \
            VALUES (\(slot), \(Int64(bitPattern: position.version)), \(slotID.map { Int64(bitPattern: $0) }), \
            \(Int64(bitPattern: position.commitID)), \(realmPath), now())
            """, logger: logger)
    }

    /// Moves the slot's row to `position` (a batch's newest commit), in the batch's transaction.
    static func update(slot: String, to position: Realm.ReplicationPosition, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("""
            UPDATE realm_replication_progress SET version = \(Int64(bitPattern: position.version)), \
            commit_id = \(Int64(bitPattern: position.commitID)) WHERE slot = \(slot)
            """, logger: logger)
    }
}
