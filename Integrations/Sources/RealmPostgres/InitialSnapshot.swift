import Logging
import NIOCore
import PostgresNIO
import RealmActors

/// The realm at a slot's position, loaded into PostgreSQL: what a sink with no progress row (a
/// new sink, or a resynchronization) does before it applies any commit, so that PostgreSQL
/// equals the realm at a known position and the commits after it are all it lacks.
///
/// In one transaction, per top-level class of the snapshot's schema: the table is created or
/// given its missing columns (``TableMapping/creation(known:)``), emptied (`TRUNCATE`: a
/// resynchronization replaces the rows), and filled with `COPY … FROM STDIN` — a row per object,
/// each value encoded as the batches' parameters are (``ColumnBinding``, written as COPY text);
/// then the progress row records the position with the slot's id. The tables the slot mapped
/// before that the snapshot has no class for are dropped, and the list replaced
/// (``MappedTables``); the slot's dead letters are deleted (the snapshot's rows replace them).
/// A failure rolls all of it back: PostgreSQL keeps what it had, and the sink retries.
///
/// Memory is bounded: objects are read one at a time from the frozen snapshot (which the slot
/// keeps in the file however long the load takes) and sent in chunks
/// (``TableMapping/copy(_:on:logger:)``); PostgreSQL applies each as it arrives.
enum InitialSnapshot {
    /// What a load did.
    struct Loaded: Sendable {
        /// The objects copied.
        var rows = 0
        /// The columns of each table loaded (the sink's `knownColumns` after it).
        var columns: [String: Set<String>] = [:]
        /// The tables of classes the realm no longer has, dropped.
        var dropped: [String] = []
    }

    /// Loads `snapshot` and writes `progress` in the transaction `connection` is in.
    static func load(_ snapshot: Realm.ReplicationSnapshot, progress: ReplicationProgress, slot: String,
                     on connection: PostgresConnection, logger: Logger) async throws -> Loaded {
        let schema = snapshot.realm.schema
        // A frozen handle of the snapshot, made and read in this task only.
        let realm = snapshot.realm.realm()
        var loaded = Loaded()
        let tables = Set(schema.objectSchema.filter { !$0.isEmbedded }.map(\.className))
        loaded.dropped = try await MappedTables.replace(slot: slot, with: tables, on: connection, logger: logger)
        try await DeadLetter.clear(slot: slot, on: connection, logger: logger)
        for objectSchema in schema.objectSchema where !objectSchema.isEmbedded {
            let mapping = TableMapping(objectSchema, schema: schema)
            for statement in mapping.creation(known: []) { try await connection.query(statement, logger: logger) }
            try await connection.query(PostgresQuery(unsafeSQL: "TRUNCATE \(mapping.table)"), logger: logger)
            loaded.columns[mapping.className] = Set(mapping.columns.map(\.name))
            loaded.rows += try await mapping.copy(realm.dynamicObjects(mapping.className), on: connection, logger: logger)
        }
        try await progress.insert(slot: slot, on: connection, logger: logger)
        return loaded
    }
}
