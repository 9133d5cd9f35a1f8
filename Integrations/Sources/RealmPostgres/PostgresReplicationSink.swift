public import CoreMetrics
public import Logging
import Metrics
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
/// `AnyRealmValue`, lists, sets, maps and embedded objects jsonb; a link the target's key (its
/// primary key, or its `_realm_key` when its class has none; null when the link is). The primary
/// key is the table's; a class without one gets a `_realm_key` bigint column (the realm's object
/// key). Tables and columns are created as the schema grows (`CREATE TABLE IF NOT EXISTS`, `ADD
/// COLUMN IF NOT EXISTS`, in the transaction of the commit that needs them); a class a migration
/// deletes has its table dropped. Embedded classes are not tables of their own: their objects are
/// in their owners' jsonb, which a change to an embedded object alone writes again.
///
/// **Schema changes.** A commit's ``Realm/Commit/schemaChanges`` become DDL in its own
/// PostgreSQL transaction, before its rows (``SchemaChangeStatements``): an added property a new
/// column holding the realm's value for existing objects, a rename `RENAME COLUMN`, a type change
/// the column replaced and filled, a removed property's column kept (or dropped, with
/// `dropsRemovedColumns`), a changed primary key or embedding the class's table reloaded. A batch
/// never spans a migration: each object is read with its own version's schema.
///
/// **Values.** A string's NUL characters become U+FFFD (PostgreSQL's text and jsonb refuse
/// them); a date outside `timestamptz`'s range (4713 BC to 294276 AD) `-infinity` or
/// `infinity`; a `Decimal128` NaN or infinity numeric `NaN` or `±Infinity`; floating-point NaN
/// and infinities are stored as they are (null inside jsonb).
///
/// **Batches.** A batch is written as its net effect (``ReplicationBatch``): per object, the
/// newest values of the properties any of its commits changed, or its deletion; rows are written
/// with multi-row `INSERT … ON CONFLICT DO UPDATE` and `DELETE … IN (…)` statements. The rows are
/// those the commits applied one at a time would leave; only PostgreSQL's intermediate states,
/// which no reader could see anyway inside one transaction, are skipped.
///
/// **Failures.** An error from PostgreSQL (down, restarting, a constraint the rows break) is
/// logged, counted and retried after a backoff, from the progress row; the realm's slot keeps
/// every commit meanwhile, so nothing is lost and the application's writes go on. Only errors
/// waiting cannot mend end ``run()``.
///
/// **Monitoring.** swift-metrics, each with the dimension `slot`: `realm.replication.commits`
/// (counter), `realm.replication.batch.duration` and `realm.replication.lag` (timers: a
/// PostgreSQL transaction; a batch's newest commit from being made to being in PostgreSQL),
/// `realm.replication.pending_commits`, `realm.replication.lag_seconds` (how long ago the oldest
/// commit PostgreSQL lacks was made; 0 when caught up) and `realm.replication.retained_bytes`
/// (gauges, set after each batch and while retrying), and `realm.replication.errors` (counter).
/// Alert on `lag_seconds` and `pending_commits` growing; `retained_bytes` is what the backlog
/// costs the realm file.
public actor PostgresReplicationSink: Service {
    let configuration: Realm.Configuration
    let slot: String
    let client: PostgresClient
    let logger: Logger
    let confirmEvery: Int
    let batchSize: Int
    let transactionTimeout: Duration
    /// Whether a property a migration removes drops its column (else the column stays, with
    /// nulls in later rows: see **Schema changes**).
    let dropsRemovedColumns: Bool
    let metrics: ReplicationMetrics
    /// The columns known to exist per table (created or checked by this process).
    var knownColumns: [String: Set<String>] = [:]
    /// The newest version applied in PostgreSQL, as far as this process knows (it reads the
    /// progress row on start and after each failure).
    public private(set) var appliedVersion: UInt64 = 0
    /// The newest version the realm's slot has confirmed: at most ``appliedVersion``.
    private var confirmedVersion: UInt64 = 0
    /// Commits applied since the slot's last confirmation.
    private var unconfirmedCommits = 0
    /// The wait before the next attempt after a failure: doubles per failure up to
    /// ``maximumRetryDelay``, back to ``firstRetryDelay`` after a batch is applied.
    private var retryDelay = PostgresReplicationSink.firstRetryDelay
    static let firstRetryDelay = Duration.milliseconds(100)
    static let maximumRetryDelay = Duration.seconds(30)

    /// - Parameters:
    ///   - configuration: the realm to replicate (opened by the sink in its own actor).
    ///   - slot: the replication slot; created at the realm's current version if missing.
    ///   - client: a running `PostgresClient` (run it in the same service group).
    ///   - logger: where failures (each one retried) and starts are logged.
    ///   - confirmEvery: how many applied commits between confirmations of the slot (each one a
    ///     realm commit); a restart re-reads at most this many commits, which PostgreSQL skips.
    ///   - batchSize: the most commits applied in one PostgreSQL transaction when the sink is
    ///     behind (it applies one at a time when caught up).
    ///   - transactionTimeout: how long one PostgreSQL transaction may take before the sink
    ///     gives up on it and retries (a connection dropped mid-query can otherwise leave it
    ///     waiting forever); far above any batch's normal time.
    ///   - dropsRemovedColumns: whether a property a migration removes drops its column; by
    ///     default the column stays (its old values kept, nulls in later rows).
    ///   - metricsFactory: where the sink's metrics go (see **Monitoring** above); the process's
    ///     `MetricsSystem` unless given.
    public init(configuration: Realm.Configuration, slot: String = "postgres", client: PostgresClient,
                logger: Logger, confirmEvery: Int = 32, batchSize: Int = 64, transactionTimeout: Duration = .seconds(60),
                dropsRemovedColumns: Bool = false, metricsFactory: any MetricsFactory = MetricsSystem.factory) {
        self.dropsRemovedColumns = dropsRemovedColumns
        self.configuration = configuration
        self.slot = slot
        self.client = client
        self.logger = logger
        self.confirmEvery = max(1, confirmEvery)
        self.batchSize = max(1, batchSize)
        self.transactionTimeout = transactionTimeout
        metrics = ReplicationMetrics(slot: slot, factory: metricsFactory)
    }

    /// Replicates until the task is cancelled or the service group shuts down gracefully;
    /// confirms what was applied before returning. A failure to reach or write PostgreSQL is
    /// logged, counted and retried after a backoff (0.1 s doubling to 30 s), resuming from the
    /// progress row; the slot keeps every commit meanwhile.
    ///
    /// - Throws: a ``Realm/Error`` from the realm (a damaged file, say), or
    ///   ``ReplicationSinkError`` if PostgreSQL holds a newer version than the realm has (a
    ///   realm restored from an older backup, or another realm's slot of the same name) — neither
    ///   of which waiting would mend.
    public func run() async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        if try !realm.replicationSlots.contains(where: { $0.name == slot }) {
            try await realm.asyncWrite { try realm.createReplicationSlot(named: slot) }
        }
        while !Task.isCancelled {
            do {
                try await replicate(realm)
                break
            } catch where Task.isCancelled {
                break
            } catch let error where !(error is Realm.Error || error is ReplicationSinkError) {
                metrics.errors.increment()
                logger.error("replication to PostgreSQL failed; retrying", metadata: [
                    "slot": "\(slot)", "error": "\(String(reflecting: error))", "retry_in": "\(retryDelay)"])
                try? recordBacklog(realm)
                // A graceful shutdown (or cancellation) during the wait ends the run.
                do { try await cancelWhenGracefulShutdown { try await Task.sleep(for: self.retryDelay) } } catch { break }
                retryDelay = min(retryDelay * 2, Self.maximumRetryDelay)
            }
        }
        // A cancelled task cannot write: PostgreSQL's progress row then tells the next run where
        // to resume. A graceful shutdown (not a cancellation) confirms here.
        if appliedVersion > confirmedVersion, !Task.isCancelled { try await confirm(realm) }
    }

    /// One attempt: resumes after the newer of the slot's and PostgreSQL's positions and applies
    /// batches until a graceful shutdown or cancellation (returns) or a failure (throws).
    private func replicate(_ realm: Realm) async throws {
        let applied = try await progress()
        _ = realm.refresh()
        confirmedVersion = try realm.replicationSlots.first { $0.name == slot }?.confirmedVersion ?? 0
        let newest = realm.fileStatistics.version
        guard applied <= newest else {
            throw ReplicationSinkError(description: "PostgreSQL has applied version \(applied) of slot '\(slot)', but the realm's newest version is \(newest): the realm is older than the data in PostgreSQL (restored from a backup?), or another realm replicates into the same database under the same slot name")
        }
        appliedVersion = max(confirmedVersion, applied)
        unconfirmedCommits = 0
        // PostgreSQL ahead of the slot (a crash between its commit and the confirmation): confirm
        // now, so the realm frees those versions and the backlog counts only what is left.
        if appliedVersion > confirmedVersion { try await confirm(realm) }
        try recordBacklog(realm)
        logger.info("replicating", metadata: ["slot": "\(slot)", "from": "\(appliedVersion)"])
        do {
            // Until a graceful shutdown ends the loop: a batch is the commits already made, up to
            // `batchSize`, applied in one PostgreSQL transaction (one commit when caught up).
            for try await batch in realm.commits(after: appliedVersion).batched(maximumCount: batchSize).cancelOnGracefulShutdown() {
                let began = ContinuousClock.now
                try await apply(batch)
                let newest = batch[batch.count - 1]
                metrics.batchDuration.record(duration: ContinuousClock.now - began)
                metrics.lag.recordNanoseconds(Int64(max(0, Date.now.timeIntervalSince(newest.commitTime)) * 1e9))
                metrics.commits.increment(by: batch.count)
                appliedVersion = newest.version
                retryDelay = Self.firstRetryDelay
                unconfirmedCommits += batch.count
                if unconfirmedCommits >= confirmEvery { try await confirm(realm) }
                try recordBacklog(realm)
            }
        } catch is CancellationError {}
    }

    private func confirm(_ realm: Realm) async throws {
        let version = appliedVersion
        try await realm.asyncWrite { try realm.confirmReplicationSlot(named: slot, through: version) }
        confirmedVersion = version
        unconfirmedCommits = 0
    }

    /// Sets the backlog gauges: the commits after ``appliedVersion`` and the bytes the file
    /// retains, at the newest version.
    private func recordBacklog(_ realm: Realm) throws {
        _ = realm.refresh()
        let backlog = try realm.replicationBacklog(after: appliedVersion)
        metrics.pendingCommits.record(backlog.commits)
        metrics.lagSeconds.record(backlog.lag())
        metrics.retainedBytes.record(realm.fileStatistics.retainedBytes)
    }

    /// The version PostgreSQL has applied for the slot (0 if none), after creating the progress
    /// table if it is missing; abandoned as ``apply(_:)``'s transactions are.
    private func progress() async throws -> UInt64 {
        let client = client, slot = slot, logger = logger
        return try await withAbandoningDeadline(transactionTimeout) {
            try await client.query(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS realm_replication_progress (slot text PRIMARY KEY, version bigint NOT NULL)
                """), logger: logger)
            let rows = try await client.query("SELECT version FROM realm_replication_progress WHERE slot = \(slot)", logger: logger)
            for try await version in rows.decode(Int64.self) { return UInt64(version) }
            return 0
        }
    }

    /// Applies commits, oldest first, in one PostgreSQL transaction with the progress row: those
    /// after the version the row holds, as their net effect (``ReplicationBatch``); the tables
    /// they need are created or extended in the same transaction. A transaction that has not
    /// finished after `transactionTimeout` is abandoned and fails (see
    /// ``withAbandoningDeadline(_:_:)``), as does one whose task is cancelled.
    func apply(_ commits: [Realm.Commit]) async throws {
        guard let last = commits.last else { return }
        let client = client, slot = slot, version = Int64(last.version), logger = logger, known = knownColumns
        let dropsRemovedColumns = dropsRemovedColumns
        let updated = try await withAbandoningDeadline(transactionTimeout) {
            try await client.withTransaction(logger: logger) { connection -> [String: Set<String>]? in
                try await connection.query("INSERT INTO realm_replication_progress (slot, version) VALUES (\(slot), 0) ON CONFLICT (slot) DO NOTHING",
                                           logger: logger)
                let rows = try await connection.query("SELECT version FROM realm_replication_progress WHERE slot = \(slot) FOR UPDATE",
                                                      logger: logger)
                var applied: Int64 = 0
                for try await value in rows.decode(Int64.self) { applied = value }
                guard applied < version else { return nil }  // applied before: nothing to do
                var known = known
                // One batch per schema: a migration's commit starts a new one (ReplicationBatch).
                for segment in ReplicationBatch.segments(commits.filter { Int64($0.version) > applied }) {
                    let statements: [PostgresQuery]
                    (statements, known) = ReplicationBatch(segment).statements(known: known, dropsRemovedColumns: dropsRemovedColumns)
                    for statement in statements { try await connection.query(statement, logger: logger) }
                }
                try await connection.query("UPDATE realm_replication_progress SET version = \(version) WHERE slot = \(slot)", logger: logger)
                return known
            }
        }
        if let updated { knownColumns = updated }
    }
}

/// Why a ``PostgresReplicationSink`` stopped rather than retry: PostgreSQL and the realm
/// disagree in a way that waiting cannot mend.
public struct ReplicationSinkError: Error, CustomStringConvertible {
    /// What is wrong, and the likely cause.
    public let description: String
}
