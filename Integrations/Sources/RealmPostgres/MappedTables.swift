import Logging
import PostgresNIO
import RealmActors

/// The tables a slot's sink has mapped classes to, recorded in `realm_replication_tables`, so
/// that a snapshot can drop those of classes the realm no longer has — and only those:
///
/// ```sql
/// CREATE TABLE realm_replication_tables (
///     slot       text NOT NULL,   -- the realm's slot name
///     table_name text NOT NULL,   -- a table the slot's rows went to (a class's name)
///     PRIMARY KEY (slot, table_name)
/// )
/// ```
///
/// Why: a snapshot (a new sink, or `resynchronize`) replaces the rows of the tables of the
/// realm's classes, but a class the realm no longer has — deleted by a migration the sink never
/// saw (the realm replaced, the slot recreated), or present in a realm another slot name used —
/// leaves a table of stale rows that look current. The sink owns the tables it maps: it
/// creates them, writes every row, empties them on a snapshot, drops one when a migration
/// deletes its class. So a snapshot drops the recorded tables its schema has no class for,
/// unless another slot's sink records them too; a table the sink never mapped (the
/// application's own, another tool's) is never recorded, so never dropped.
///
/// Recorded: every table a snapshot loads (the list replaced, in the snapshot's transaction),
/// and every table a batch creates or first writes in a run of the sink (in the batch's
/// transaction); forgotten when a batch drops it with its class (so that a table of that name
/// made later by someone else is not taken for the sink's). A table mapped before the sink
/// recorded them (an older sink) is not known to be the sink's, and stays; drop it by hand.
enum MappedTables {
    static let table = "realm_replication_tables"

    static let creation: [PostgresQuery] = [
        PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(table) (slot text NOT NULL, table_name text NOT NULL, PRIMARY KEY (slot, table_name))"),
    ]

    /// Records `tables` as the slot's (those already recorded stay), and forgets `dropped`: no
    /// statement if both are empty.
    static func record(_ tables: Set<String>, dropped: Set<String> = [], slot: String,
                       on connection: PostgresConnection, logger: Logger) async throws {
        if !dropped.isEmpty {
            try await connection.query("""
                DELETE FROM realm_replication_tables WHERE slot = \(slot) AND table_name = ANY(\(dropped.sorted())::text[])
                """, logger: logger)
        }
        guard !tables.isEmpty else { return }
        try await connection.query("""
            INSERT INTO realm_replication_tables (slot, table_name) SELECT \(slot), unnest(\(tables.sorted())::text[]) \
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    /// The tables `commits` (oldest first) drop for good: those of classes a commit removed
    /// (``Realm/ClassChanges/deletedAll``) that the newest commit's schema has no table for.
    static func dropped(by commits: [Realm.Commit]) -> Set<String> {
        guard let schema = commits.last?.realm.schema else { return [] }
        let removed = commits.flatMap { $0.changes.filter(\.deletedAll).map(\.className) }
        return Set(removed.filter { schema[$0].map(\.isEmbedded) ?? true })
    }

    /// Makes `tables` the slot's whole record (a snapshot's tables), dropping each table the
    /// record held that is not among them and no other slot records; returns the tables dropped.
    static func replace(slot: String, with tables: Set<String>, on connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let rows = try await connection.query("""
            SELECT table_name FROM realm_replication_tables mine WHERE slot = \(slot) AND NOT table_name = ANY(\(tables.sorted())::text[]) \
            AND NOT EXISTS (SELECT 1 FROM realm_replication_tables other WHERE other.slot <> mine.slot AND other.table_name = mine.table_name) \
            ORDER BY table_name
            """, logger: logger)
        var stale: [String] = []
        for try await name in rows.decode(String.self) { stale.append(name) }
        for name in stale { try await connection.query(TableMapping.drop(className: name), logger: logger) }
        try await connection.query("DELETE FROM realm_replication_tables WHERE slot = \(slot)", logger: logger)
        try await record(tables, slot: slot, on: connection, logger: logger)
        return stale
    }
}
