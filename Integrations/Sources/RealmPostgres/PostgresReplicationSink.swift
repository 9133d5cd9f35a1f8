public import Logging
public import PostgresNIO
public import RealmActors
public import ServiceLifecycle
import Foundation

/// Replicates a realm into PostgreSQL: a swift-service-lifecycle `Service` that reads the
/// realm's commits from a replication slot (``Realm/commits(after:)``) and applies each in one
/// PostgreSQL transaction, together with the slot's position in a progress table.
///
/// **Exactly once in effect.** Commits are applied in PostgreSQL transactions (one commit when
/// the sink keeps up; up to `batchSize` already-made commits when it is behind) that first lock
/// the slot's row of `realm_replication_progress` and skip every commit that row is at or past,
/// then write the rows and the newest version. So a commit applied twice — after a
/// crash of this process between PostgreSQL's commit and the slot's confirmation, or of
/// PostgreSQL before it answered — changes nothing. The realm's slot is confirmed only with
/// versions PostgreSQL has committed (every `confirmEvery` commits, and at shutdown), so the
/// versions not yet applied stay in the realm file; on start the sink resumes after the newer
/// of the two positions.
///
/// **Mapping.** Each class is a table of its name; each persisted property a column of its name:
/// `Int` bigint, `Bool` boolean, `Float` real, `Double` double precision, `String` text, `Data`
/// bytea, `Date` timestamptz, `ObjectId` text (24 hex digits), `Decimal128` numeric, `UUID` uuid;
/// `AnyRealmValue`, lists, sets, maps and embedded objects jsonb; a link the target's primary key.
/// The primary key is the table's; a class without one gets a `_realm_key` bigint column (the
/// realm's object key). Tables and columns are created as the schema grows (`CREATE TABLE IF NOT
/// EXISTS`, `ADD COLUMN IF NOT EXISTS`). Embedded classes are not tables of their own: their
/// objects are in their parents' jsonb.
public actor PostgresReplicationSink: Service {
    let configuration: Realm.Configuration
    let slot: String
    let client: PostgresClient
    let logger: Logger
    let confirmEvery: Int
    let batchSize: Int
    /// The columns known to exist per table (created or checked by this process).
    var knownColumns: [String: Set<String>] = [:]
    /// The newest version applied in PostgreSQL by this process.
    public private(set) var appliedVersion: UInt64 = 0

    /// - Parameters:
    ///   - configuration: the realm to replicate (opened by the sink in its own actor).
    ///   - slot: the replication slot; created at the realm's current version if missing.
    ///   - client: a running `PostgresClient` (run it in the same service group).
    ///   - confirmEvery: how many applied commits between confirmations of the slot (each one a
    ///     realm commit); a restart re-reads at most this many commits, which PostgreSQL skips.
    ///   - batchSize: the most commits applied in one PostgreSQL transaction when the sink is
    ///     behind (it applies one at a time when caught up).
    public init(configuration: Realm.Configuration, slot: String = "postgres", client: PostgresClient,
                logger: Logger, confirmEvery: Int = 32, batchSize: Int = 64) {
        self.configuration = configuration
        self.slot = slot
        self.client = client
        self.logger = logger
        self.confirmEvery = max(1, confirmEvery)
        self.batchSize = max(1, batchSize)
    }

    /// Replicates until the task is cancelled or the service group shuts down gracefully;
    /// confirms what was applied before returning.
    public func run() async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        if try !realm.replicationSlots.contains(where: { $0.name == slot }) {
            try await realm.asyncWrite { try realm.createReplicationSlot(named: slot) }
        }
        try await client.query(PostgresQuery(unsafeSQL: """
            CREATE TABLE IF NOT EXISTS realm_replication_progress (slot text PRIMARY KEY, version bigint NOT NULL)
            """), logger: logger)
        let confirmed = try realm.replicationSlots.first { $0.name == slot }?.confirmedVersion ?? 0
        let start = max(confirmed, try await progress())
        appliedVersion = start
        logger.info("replicating", metadata: ["slot": "\(slot)", "from": "\(start)"])
        var unconfirmed = 0
        do {
            // Until a graceful shutdown ends the loop: a batch is the commits already made, up to
            // `batchSize`, applied in one PostgreSQL transaction (one commit when caught up).
            for try await batch in realm.commits(after: start).batched(maximumCount: batchSize).cancelOnGracefulShutdown() {
                realm.refresh()
                try await apply(batch, schema: realm.schema)
                appliedVersion = batch[batch.count - 1].version
                unconfirmed += batch.count
                if unconfirmed >= confirmEvery {
                    try await confirm(realm)
                    unconfirmed = 0
                }
            }
        } catch is CancellationError {}
        // A cancelled task cannot write: PostgreSQL's progress row then tells the next run where
        // to resume. A graceful shutdown (not a cancellation) confirms here.
        if unconfirmed > 0, !Task.isCancelled { try await confirm(realm) }
    }

    private func confirm(_ realm: Realm) async throws {
        let version = appliedVersion
        try await realm.asyncWrite { try realm.confirmReplicationSlot(named: slot, through: version) }
    }

    /// The version PostgreSQL has applied for the slot (0 if none).
    private func progress() async throws -> UInt64 {
        let rows = try await client.query("SELECT version FROM realm_replication_progress WHERE slot = \(slot)", logger: logger)
        for try await version in rows.decode(Int64.self) { return UInt64(version) }
        return 0
    }

    /// Applies commits, oldest first, in one PostgreSQL transaction with the progress row; skips
    /// those the progress row is at or past.
    func apply(_ commits: [Realm.Commit], schema: Schema) async throws {
        guard let last = commits.last else { return }
        // Tables and columns first (DDL outside the commits' transaction; idempotent).
        for changes in commits.flatMap(\.changes) {
            guard let objectSchema = schema[changes.className], !objectSchema.isEmbedded else { continue }
            try await ensureTable(objectSchema, schema: schema)
        }
        let statements = try commits.map { commit in
            (Int64(commit.version), try commit.changes.flatMap { changes -> [PostgresQuery] in
                guard let objectSchema = schema[changes.className], !objectSchema.isEmbedded else { return [] }
                let columns = Self.columns(of: objectSchema, schema: schema)  // once per class, not per object
                let upserts = try (changes.inserted + changes.modified).map { try upsert($0, into: objectSchema.className, columns: columns, schema: schema) }
                let deletes = changes.deleted.map { delete($0, from: objectSchema.className, key: columns[0]) }
                return upserts + deletes
            })
        }
        let slot = slot, version = Int64(last.version), logger = logger
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("INSERT INTO realm_replication_progress (slot, version) VALUES (\(slot), 0) ON CONFLICT (slot) DO NOTHING",
                                       logger: logger)
            let rows = try await connection.query("SELECT version FROM realm_replication_progress WHERE slot = \(slot) FOR UPDATE",
                                                  logger: logger)
            var applied: Int64 = 0
            for try await value in rows.decode(Int64.self) { applied = value }
            guard applied < version else { return }  // applied before: nothing to do
            for (commitVersion, commitStatements) in statements where commitVersion > applied {
                for statement in commitStatements { try await connection.query(statement, logger: logger) }
            }
            try await connection.query("UPDATE realm_replication_progress SET version = \(version) WHERE slot = \(slot)", logger: logger)
        }
    }

    // MARK: Schema

    /// Creates the class's table and any missing column.
    func ensureTable(_ objectSchema: ObjectSchema, schema: Schema) async throws {
        let table = objectSchema.className
        let columns = Self.columns(of: objectSchema, schema: schema)
        let known = knownColumns[table, default: []]
        guard !Set(columns.map(\.name)).isSubset(of: known) else { return }
        let key = columns[0]
        try await client.query(PostgresQuery(unsafeSQL:
            "CREATE TABLE IF NOT EXISTS \(Self.quoted(table)) (\(Self.quoted(key.name)) \(key.type) PRIMARY KEY)"), logger: logger)
        for column in columns.dropFirst() where !known.contains(column.name) {
            try await client.query(PostgresQuery(unsafeSQL:
                "ALTER TABLE \(Self.quoted(table)) ADD COLUMN IF NOT EXISTS \(Self.quoted(column.name)) \(column.type)"), logger: logger)
        }
        knownColumns[table] = Set(columns.map(\.name))
    }

    /// The table's columns, the key first: the primary key, or `_realm_key`.
    static func columns(of objectSchema: ObjectSchema, schema: Schema) -> [(name: String, type: String, property: Property?)] {
        var columns: [(name: String, type: String, property: Property?)] = []
        if objectSchema.primaryKeyProperty == nil { columns.append(("_realm_key", "bigint", nil)) }
        let properties = objectSchema.properties.sorted { ($0.isPrimary ? 0 : 1) < ($1.isPrimary ? 0 : 1) }
        for property in properties { columns.append((property.name, columnType(property, schema: schema), property)) }
        return columns
    }

    /// The PostgreSQL type of a property's column.
    static func columnType(_ property: Property, schema: Schema) -> String {
        if property.isArray || property.isSet || property.isMap { return "jsonb" }
        switch property.type {
        case .int: return "bigint"
        case .bool: return "boolean"
        case .float: return "real"
        case .double: return "double precision"
        case .string, .objectId: return "text"
        case .data: return "bytea"
        case .date: return "timestamptz"
        case .decimal128: return "numeric"
        case .UUID: return "uuid"
        case .any, .linkingObjects: return "jsonb"
        case .object:
            guard let target = property.objectClassName.flatMap({ schema[$0] }), !target.isEmbedded else { return "jsonb" }
            guard let key = target.primaryKeyProperty else { return "bigint" }
            return columnType(key, schema: schema)
        }
    }

    static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    // MARK: Rows

    /// `INSERT … ON CONFLICT (key) DO UPDATE` of the properties the commit wrote (all of them for
    /// a new object), with their values at the commit's version.
    /// `columns` are the table's (``columns(of:schema:)``), the key first.
    func upsert(_ change: Realm.ObjectChange, into table: String, columns: [(name: String, type: String, property: Property?)],
                schema: Schema) throws -> PostgresQuery {
        let written = Set(change.changedProperties)
        var names: [String] = []
        var placeholders: [String] = []
        var binds = PostgresBindings()
        let values: [(Property, type: String, Any?)] = change.object.read { object in
            columns.compactMap { column in
                guard let property = column.property, property.isPrimary || written.contains(property.name) else { return nil }
                return (property, column.type, object[property.name])
            }
        }
        if case .objectKey(let key) = change.key {
            names.append("_realm_key")
            placeholders.append("$\(binds.count + 1)::bigint")
            binds.append(Int64(bitPattern: key))
        }
        for (property, type, value) in values {
            names.append(Self.quoted(property.name))
            placeholders.append("$\(binds.count + 1)::\(type)")
            try ColumnBinding(value, property: property, schema: schema).append(to: &binds)
        }
        let key = Self.quoted(columns[0].name)
        let updates = names.filter { $0 != key }.map { "\($0) = EXCLUDED.\($0)" }
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", ")
        return PostgresQuery(unsafeSQL: """
            INSERT INTO \(Self.quoted(table)) (\(names.joined(separator: ", "))) \
            VALUES (\(placeholders.joined(separator: ", "))) ON CONFLICT (\(key)) \(conflict)
            """, binds: binds)
    }

    /// `DELETE` of the object's row, by its key (`key`: the table's key column).
    func delete(_ objectKey: Realm.ObjectKey, from table: String, key: (name: String, type: String, property: Property?)) -> PostgresQuery {
        var binds = PostgresBindings()
        ColumnBinding(objectKey).append(to: &binds)
        return PostgresQuery(unsafeSQL: "DELETE FROM \(Self.quoted(table)) WHERE \(Self.quoted(key.name)) = $1::\(key.type)", binds: binds)
    }
}
