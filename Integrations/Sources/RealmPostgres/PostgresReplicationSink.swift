public import CoreMetrics
public import Logging
import Metrics
public import PostgresNIO
public import RealmActors
public import ServiceLifecycle
import Foundation

/// Replicates a realm into PostgreSQL: a swift-service-lifecycle `Service` that loads the realm
/// into PostgreSQL once (the initial snapshot), then reads its commits from a replication slot
/// (``Realm/commits(after:)``) and applies each in one PostgreSQL transaction, together with the
/// position reached in a progress table.
///
/// **Exactly once, or loudly stopped.** PostgreSQL holds the realm as of a position recorded in
/// the slot's row of `realm_replication_progress` (``ReplicationProgress``: the slot's id, the
/// version and the id of the commit that made it), always written in the transaction that
/// changed the rows. Either every commit after that position is applied exactly once, or the
/// sink stops with a ``ReplicationSinkError`` that says why — it never skips one.
///
/// - *Initial snapshot.* With no row for the slot (a new sink; `resynchronize`), the sink creates
///   the slot if the realm has none and loads ``Realm/replicationSnapshot(forSlot:)`` — every
///   object of every top-level class, streamed with `COPY` in bounded memory, the tables emptied
///   first — in one transaction with the row (``InitialSnapshot``). The same transaction drops
///   the tables the slot's sink mapped before whose classes the realm no longer has (recorded in
///   `realm_replication_tables`, ``MappedTables``: never a table the sink did not map) and
///   deletes the slot's dead letters.
/// - *Resuming.* With a row, the sink resumes strictly after its position, once ``ResumeCheck``
///   has found the realm's slot to be the row's (same id, valid) and the position to be a point
///   of the realm's retained history; otherwise it stops, saying whether PostgreSQL is behind the
///   slot, the realm behind PostgreSQL, the realm another history, the slot another or
///   invalidated (``ReplicationSinkError/Reason``). A slot behind the row is confirmed through it.
/// - *Batches.* Commits are applied in PostgreSQL transactions (one commit when the sink keeps
///   up; up to `batchSize` already-made commits when it is behind) that first lock the row,
///   check it still has the slot's id, and skip every commit it is at or past. So a commit
///   applied twice — after a crash of this process between PostgreSQL's commit and the slot's
///   confirmation, or of PostgreSQL before it answered — changes nothing. The realm's slot is
///   confirmed only with versions PostgreSQL has committed (every `confirmEvery` commits, at
///   most once per `confirmInterval`, and at shutdown), so the versions not yet applied stay in
///   the realm file.
///
/// Every stop is the operator's to mend, and the mend is a resynchronization, asked for in one
/// of two ways:
/// - from the shell, with the service stopped: `realm-inspect resync-slot FILE SLOT`, which
///   invalidates the slot with the reason ``Realm/ReplicationSlotInvalidation/Reason/resynchronizationRequested``
///   (``Realm/requestResynchronization(ofReplicationSlotNamed:)`` from code). On its next start
///   the sink logs that the operator asked, deletes the slot's progress row, drops the slot,
///   creates it again with the same limits and loads a snapshot — no code change, and no stop
///   (a request made under a running sink is honoured at once). It works on every stop, a slot
///   a retention limit invalidated included;
/// - in code: start the sink once with `resynchronize: true` (after dropping the slot, if it
///   was invalidated: `realm-inspect drop-slot FILE SLOT`).
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
/// *Reserved names.* A schema the mapping cannot hold — a property `_realm_key` in a class
/// without a primary key, a class named like the sink's tables (`realm_replication_…`), a class
/// or property name longer than PostgreSQL's 63-byte identifiers (``ReservedNames``) — is
/// refused before the slot is created or a snapshot loaded, and a migration that introduces one
/// stops the sink at its commit, the commits before it applied
/// (``ReplicationSinkError/Reason/reservedName``): never a retry loop.
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
/// with multi-row `INSERT … ON CONFLICT DO UPDATE` and `DELETE … IN (…)` statements, chained as
/// data-modifying common table expressions into one statement per batch (as bind limits allow:
/// ``RowStatements``). The rows are those the commits applied one at a time would leave; only
/// PostgreSQL's intermediate states, which no reader could see anyway inside one transaction,
/// are skipped.
///
/// **Failures.** An error from PostgreSQL (down, restarting, a lost connection, a timeout, a
/// serialization failure) is logged, counted and retried after a backoff, from the progress
/// row; the realm's slot keeps every commit meanwhile, so nothing is lost and the application's
/// writes go on. Only errors waiting cannot mend end ``run()``: the stops above, and a damaged
/// realm.
///
/// *Dead letters.* An error of the data — PostgreSQL refusing a row's values, SQLSTATE classes
/// 22 (data exception) and 23 (integrity constraint violation) and the like (``RowRejection``):
/// a `CHECK` constraint or a trigger an operator added, a value out of range — is retried too,
/// but after `deadLetterAfter` (3) attempts of a batch have failed with one, the sink isolates
/// the poison (``PoisonIsolation``): it applies the batch's commits one transaction each, and
/// the one PostgreSQL refuses row by row, each row in a savepoint. A row still refused is
/// written to `realm_replication_dead_letters` (``DeadLetter``: the slot and its id, the class,
/// the object's key as text, the commit's version and id, the whole row as jsonb, the SQLSTATE
/// and message, when) in the same transaction as the commit's other rows and the progress row
/// — so exactly once, a restart never writes it again — counted in
/// `realm.replication.dead_letters` and logged at `error` with its class, key, version and
/// SQLSTATE; the stream goes on. PostgreSQL then lacks that one change until an operator
/// replays it (the Scaling Out article shows the SQL): mend the cause (the constraint, the
/// trigger), then, oldest first, write the row from its `row_data`
/// (`jsonb_populate_record(NULL::"Class", row_data)`: the object as its commit left it — set
/// only the columns no later accepted write of the object changed; a `delete`: delete the row)
/// and delete the dead letter; or resynchronize, which reloads every row and deletes the slot's
/// dead letters.
/// Schema changes and snapshots are not isolated: a refused `ALTER` or `COPY` is retried.
///
/// **Monitoring.** swift-metrics, each with the dimension `slot`: `realm.replication.commits`
/// (counter), `realm.replication.batch.duration` and `realm.replication.lag` (timers: a
/// PostgreSQL transaction; a batch's newest commit from being made to being in PostgreSQL),
/// `realm.replication.pending_commits`, `realm.replication.lag_seconds` (how long ago the oldest
/// commit PostgreSQL lacks was made; 0 when caught up) and `realm.replication.retained_bytes`
/// (gauges, set after each batch and while retrying), `realm.replication.errors` and
/// `realm.replication.dead_letters` (counters),
/// `realm.replication.stops` (counter, with the dimension `reason`), and
/// `realm.replication.snapshot.rows` and `.duration` (see ``ReplicationMetrics``). Alert on
/// `lag_seconds` and `pending_commits` growing, on any stop and on any dead letter;
/// `retained_bytes` is what the backlog costs the realm file.
public actor PostgresReplicationSink: Service {
    let configuration: Realm.Configuration
    let slot: String
    let client: PostgresClient
    let logger: Logger
    let confirmEvery: Int
    let confirmInterval: Duration
    let batchSize: Int
    let transactionTimeout: Duration
    /// Whether a property a migration removes drops its column (else the column stays, with
    /// nulls in later rows: see **Schema changes**).
    let dropsRemovedColumns: Bool
    let snapshotTimeout: Duration
    let slotLimits: Realm.ReplicationRetentionLimits
    /// How many attempts of a batch may fail with a data error (``RowRejection``) before the
    /// next one isolates the rows PostgreSQL refuses as dead letters; nil: never (retry forever).
    let deadLetterAfter: Int?
    let metrics: ReplicationMetrics
    /// The realm file, as the progress row and the stops' messages name it.
    let realmPath: String
    /// Whether the next start loads a snapshot even if PostgreSQL has a progress row: the
    /// `resynchronize` option, until a snapshot is loaded.
    private var resynchronizePending: Bool
    /// The id of the slot whose progress row the start checked or wrote; every batch's
    /// transaction checks the row still has it.
    private(set) var slotID: UInt64?
    /// The columns known to exist per table (created or checked by this process).
    var knownColumns: [String: Set<String>] = [:]
    /// The newest version applied in PostgreSQL, as far as this process knows (it reads the
    /// progress row on start and after each failure).
    public private(set) var appliedVersion: UInt64 = 0
    /// The newest version the realm's slot has confirmed (behind ``appliedVersion`` until the
    /// next confirmation; ahead of it only while replaying commits another slot still keeps).
    private var confirmedVersion: UInt64 = 0
    /// Commits applied since the slot's last confirmation.
    private var unconfirmedCommits = 0
    /// When the slot was last confirmed (nil before the first confirmation).
    private var lastConfirmation: ContinuousClock.Instant?
    /// Whether a confirmation is waiting for the realm's write.
    private var isConfirming = false
    /// The wait before the next attempt after a failure: doubles per failure up to
    /// ``maximumRetryDelay``, back to ``firstRetryDelay`` after a batch is applied.
    private var retryDelay = PostgresReplicationSink.firstRetryDelay
    /// Attempts that failed with a data error since a batch was last applied: at
    /// ``deadLetterAfter``, the next attempt isolates the poison (``PoisonIsolation``).
    private var dataFailures = 0
    static let firstRetryDelay = Duration.milliseconds(100)
    static let maximumRetryDelay = Duration.seconds(30)

    /// - Parameters:
    ///   - configuration: the realm to replicate (opened by the sink in its own actor).
    ///   - slot: the replication slot; created at the realm's current version if missing when
    ///     PostgreSQL has no progress row for it (a slot missing when it has one is a stop).
    ///     Give each realm replicating into one database its own slot name.
    ///   - client: a running `PostgresClient` (run it in the same service group).
    ///   - logger: where failures (each one retried) and starts are logged.
    ///   - confirmEvery: how many applied commits between confirmations of the slot (each one a
    ///     realm commit); a restart re-reads the commits applied since the last confirmation,
    ///     which PostgreSQL skips.
    ///   - confirmInterval: the least time between two confirmations of the slot; a confirmation
    ///     due sooner is made when the interval has passed (beside the batches being applied).
    ///     A confirmation is a realm commit that takes the write lock from the application's
    ///     writers and frees what the slot no longer keeps, at a cost that grows with the
    ///     backlog the slot retained: a sink catching up confirms once per interval rather than
    ///     once per batch (measured: confirming every 16 commits took a third of a catch-up's
    ///     time). Zero confirms every `confirmEvery` commits, in the batches' path.
    ///   - batchSize: the most commits applied in one PostgreSQL transaction when the sink is
    ///     behind (it applies one at a time when caught up).
    ///   - transactionTimeout: how long one PostgreSQL transaction may take before the sink
    ///     gives up on it and retries (a connection dropped mid-query can otherwise leave it
    ///     waiting forever); far above any batch's normal time.
    ///   - dropsRemovedColumns: whether a property a migration removes drops its column; by
    ///     default the column stays (its old values kept, nulls in later rows).
    ///   - snapshotTimeout: how long the initial snapshot's transaction (every object of the
    ///     realm, streamed with COPY) may take before the sink abandons it and retries.
    ///   - slotLimits: the retention limits of the slot, when the sink creates it (see
    ///     ``Realm/ReplicationRetentionLimits``); none by default. Past them the realm
    ///     invalidates the slot and the sink stops (``ReplicationSinkError/Reason/slotInvalidated``).
    ///   - resynchronize: load a new snapshot on start even if PostgreSQL has a progress row,
    ///     replacing the mapped tables' rows — the fix for every stop (see
    ///     ``ReplicationSinkError``). Once loaded, the sink goes on as usual; a sink started
    ///     with it again loads again, so pass it for the run that recovers, not always. (From
    ///     the shell, `realm-inspect resync-slot FILE SLOT` asks for the same on the next start,
    ///     with no option: see **Exactly once, or loudly stopped**.)
    ///   - deadLetterAfter: how many attempts of a batch may fail with a data error (PostgreSQL
    ///     refusing a row's values: a `CHECK` constraint or trigger an operator added, a value
    ///     out of range; see **Failures** above) before the sink sets the refused rows aside in
    ///     `realm_replication_dead_letters` and goes on; nil retries such a batch forever, as
    ///     every other failure is.
    ///   - metricsFactory: where the sink's metrics go (see **Monitoring** above); the process's
    ///     `MetricsSystem` unless given.
    public init(configuration: Realm.Configuration, slot: String = "postgres", client: PostgresClient,
                logger: Logger, confirmEvery: Int = 32, confirmInterval: Duration = .seconds(1), batchSize: Int = 256, transactionTimeout: Duration = .seconds(60),
                snapshotTimeout: Duration = .seconds(6 * 3_600), slotLimits: Realm.ReplicationRetentionLimits = .init(),
                resynchronize: Bool = false, dropsRemovedColumns: Bool = false, deadLetterAfter: Int? = 3,
                metricsFactory: any MetricsFactory = MetricsSystem.factory) {
        self.deadLetterAfter = deadLetterAfter.map { max(1, $0) }
        self.dropsRemovedColumns = dropsRemovedColumns
        self.configuration = configuration
        self.slot = slot
        self.client = client
        self.logger = logger
        self.confirmEvery = max(1, confirmEvery)
        self.confirmInterval = confirmInterval
        self.batchSize = max(1, batchSize)
        self.transactionTimeout = transactionTimeout
        self.snapshotTimeout = snapshotTimeout
        self.slotLimits = slotLimits
        resynchronizePending = resynchronize
        realmPath = configuration.fileURL?.path ?? "(in memory)"
        metrics = ReplicationMetrics(slot: slot, factory: metricsFactory)
    }

    /// Replicates until the task is cancelled or the service group shuts down gracefully;
    /// confirms what was applied before returning.
    ///
    /// First, where to start. Without a progress row for the slot (a new sink, or PostgreSQL
    /// restored to before the sink's first load), or with `resynchronize`, the sink creates the
    /// slot if the realm has none (with `slotLimits`) and loads the realm at the slot's position
    /// into PostgreSQL, replacing the mapped tables' rows, in one transaction with the progress
    /// row (``InitialSnapshot``). With a row, it checks the row against the realm
    /// (``ResumeCheck``) and resumes strictly after the row's position — confirming the slot
    /// through it if the slot is behind. Then it applies the commits after that position.
    ///
    /// A failure to reach or write PostgreSQL is logged, counted and retried after a backoff
    /// (0.1 s doubling to 30 s), from the progress row; the slot keeps every commit meanwhile.
    /// Rows PostgreSQL still refuses after `deadLetterAfter` attempts become dead letters (see
    /// **Failures** above), and the stream goes on.
    ///
    /// - Throws: ``ReplicationSinkError`` when PostgreSQL's row and the realm disagree so that
    ///   going on would skip or repeat commits, or the realm's schema has a name the mapping
    ///   cannot hold (its ``ReplicationSinkError/reason`` says which, its description the cause
    ///   and the fix); a ``Realm/Error`` from the realm (a damaged file, say). Each is logged
    ///   and counted (`realm.replication.stops`) — none of them is mended by waiting.
    public func run() async throws {
        do {
            try await replicateUntilStopped()
        } catch let error as ReplicationSinkError {
            metrics.stopped(reason: error.reason.rawValue)
            logger.critical("replication to PostgreSQL stopped", metadata: [
                "slot": "\(slot)", "reason": "\(error.reason.rawValue)", "error": "\(error.description)"])
            throw error
        } catch let error as Realm.Error {
            metrics.stopped(reason: "realm_error")
            logger.critical("replication to PostgreSQL stopped: the realm failed", metadata: [
                "slot": "\(slot)", "error": "\(String(reflecting: error))"])
            throw error
        }
    }

    private func replicateUntilStopped() async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        while !Task.isCancelled {
            do {
                try await replicate(realm)
                break
            } catch where Task.isCancelled {
                break
            } catch is ResynchronizationRequested {
                continue  // asked while running: start again at once, loading a snapshot
            } catch let error as ProgressMovedBack {
                logger.warning("PostgreSQL's progress row moved back under the running sink (restored?); checking it again", metadata: [
                    "slot": "\(slot)", "row": "\(error.position)", "applied": "\(appliedVersion)"])
                continue  // the start checks the row against the realm
            } catch let error where !(error is Realm.Error || error is ReplicationSinkError) {
                metrics.errors.increment()
                var metadata: Logger.Metadata = ["slot": "\(slot)", "error": "\(String(reflecting: error))", "retry_in": "\(retryDelay)"]
                if let rejection = RowRejection(error) {
                    // PostgreSQL refused the data: after deadLetterAfter such attempts, isolate it.
                    dataFailures += 1
                    metadata["sqlstate"] = "\(rejection.sqlState)"
                    if let deadLetterAfter { metadata["dead_letters_after"] = "\(dataFailures)/\(deadLetterAfter)" }
                }
                logger.error("replication to PostgreSQL failed; retrying", metadata: metadata)
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

    /// One attempt: finds the position to resume from (loading a snapshot if PostgreSQL has
    /// none) and applies batches until a graceful shutdown or cancellation (returns) or a
    /// failure (throws).
    private func replicate(_ realm: Realm) async throws {
        let position = try await start(realm)
        appliedVersion = position.version
        _ = realm.refresh()
        confirmedVersion = try ownSlot(in: realm)?.confirmedVersion ?? 0
        unconfirmedCommits = 0
        // PostgreSQL ahead of the slot (a crash between its commit and the confirmation): confirm
        // now, so the realm frees those versions and the backlog counts only what is left.
        if appliedVersion > confirmedVersion { try await confirm(realm) }
        try recordBacklog(realm)
        logger.info("replicating", metadata: ["slot": "\(slot)", "from": "\(position)"])
        // Confirmations the interval deferred are made when it has passed, even if no commit
        // comes meanwhile (and, while a backlog is applied, beside its batches).
        let deferredConfirmations = confirmInterval > .zero ? Task { await self.confirmWhenDue(realm) } : nil
        defer { deferredConfirmations?.cancel() }
        do {
            // Until a graceful shutdown ends the loop: a batch is the commits already made, up to
            // `batchSize`, applied in one PostgreSQL transaction (one commit when caught up).
            for try await received in realm.commits(after: position).batched(maximumCount: batchSize).cancelOnGracefulShutdown() {
                // A commit whose schema has a name the sink cannot map: the commits before it, then the stop.
                let (batch, refusal) = ReservedNames.split(received, slot: slot)
                if batch.isEmpty, let refusal { throw refusal }
                let began = ContinuousClock.now
                if let deadLetterAfter, dataFailures >= deadLetterAfter {
                    try await applyIsolatingPoison(batch)
                } else {
                    try await apply(batch)
                }
                dataFailures = 0
                let newest = batch[batch.count - 1]
                metrics.batchDuration.record(duration: ContinuousClock.now - began)
                metrics.lag.recordNanoseconds(Int64(max(0, Date.now.timeIntervalSince(newest.commitTime)) * 1e9))
                metrics.commits.increment(by: batch.count)
                appliedVersion = newest.version
                retryDelay = Self.firstRetryDelay
                unconfirmedCommits += batch.count
                if isConfirmationDue { try await confirm(realm) }
                try recordBacklog(realm)
                if let refusal { throw refusal }
            }
        } catch is CancellationError {
        } catch let error as Realm.Error where error.code == .replicationPositionLost || error.code == .replicationSlotInvalidated {
            // The realm stopped keeping the stream's position under it (a retention limit
            // invalidated the slot, or it was dropped): say which, as a start would. A
            // resynchronization the operator asked for is no stop: the next attempt's start
            // honours it (``start(_:)``).
            if try resynchronizationRequested(realm) { throw ResynchronizationRequested() }
            if let progress = try await progress() { _ = try check(progress, in: realm) }
            throw error
        }
    }

    /// The position to apply commits after: the progress row's, checked against the realm; or,
    /// when PostgreSQL has no row or a resynchronization is pending, a new snapshot's.
    private func start(_ realm: Realm) async throws -> Realm.ReplicationPosition {
        var progress = try await progress()
        _ = realm.refresh()
        if try resynchronizationRequested(realm) {
            // The operator asked (realm-inspect resync-slot): no stop, a new snapshot. The row
            // goes first, so that a crash between the slot's new creation and the snapshot's
            // commit finds no row (a load) rather than a row of the old slot (a slot mismatch).
            logger.notice("the operator asked for a resynchronization: creating the slot again and loading a new snapshot", metadata: [
                "slot": "\(slot)", "previous_position": "\(progress.map { "\($0.position)" } ?? "none")"])
            if progress != nil { try await deleteProgress() }
            progress = nil
        }
        guard let progress, !resynchronizePending else { return try await loadSnapshot(realm) }
        let position = try check(progress, in: realm)
        slotID = progress.slotID
        return position
    }

    /// What a run does before it applies commits (``start(_:)``, with a realm of the sink's own),
    /// for tests that then call ``apply(_:)`` themselves.
    func prepare() async throws -> Realm.ReplicationPosition {
        try await start(Realm(configuration: configuration, actor: self))
    }

    /// The progress row's position if the realm can deliver the commits after it (see
    /// ``ResumeCheck``); throws the stop that says why not.
    private func check(_ progress: ReplicationProgress, in realm: Realm) throws -> Realm.ReplicationPosition {
        _ = realm.refresh()
        return try ResumeCheck.position(
            resuming: progress, slotName: slot, slot: try ownSlot(in: realm),
            realmPath: realmPath, newestVersion: realm.fileStatistics.version, status: { try realm.replicationPositionStatus($0) })
    }

    /// The sink's slot as `realm` has it now (nil if the realm has none of that name).
    private func ownSlot(in realm: Realm) throws -> Realm.ReplicationSlot? {
        try realm.replicationSlots.first { $0.name == slot }
    }

    /// Loads the realm at the slot's position into PostgreSQL (``InitialSnapshot``), creating
    /// the slot first if the realm has none; returns the position.
    private func loadSnapshot(_ realm: Realm) async throws -> Realm.ReplicationPosition {
        let existing = try ownSlot(in: realm)
        if existing == nil {
            try ReservedNames.check(realm.schema, slot: slot, when: "The realm's schema")
            let name = slot, limits = slotLimits
            try await realm.asyncWrite { try realm.createReplicationSlot(named: name, limits: limits) }
            logger.notice("created replication slot", metadata: ["slot": "\(slot)"])
        } else if let existing, existing.invalidation?.reason == .resynchronizationRequested {
            // The same name and limits, a new id and position: the snapshot's.
            let name = slot, limits = existing.limits
            try await realm.asyncWrite {
                try realm.dropReplicationSlot(named: name)
                try realm.createReplicationSlot(named: name, limits: limits)
            }
            logger.notice("created replication slot again, as the operator asked", metadata: ["slot": "\(slot)"])
        }
        if let invalidation = try ownSlot(in: realm)?.invalidation {
            throw ResumeCheck.invalidated(slot, invalidation)
        }
        let snapshot: Realm.ReplicationSnapshot
        do {
            snapshot = try realm.replicationSnapshot(forSlot: slot)
        } catch let error as Realm.Error where error.code == .replicationSlotInvalidated {
            // Invalidated between the check and the snapshot.
            guard let invalidation = try ownSlot(in: realm)?.invalidation else { throw error }
            throw ResumeCheck.invalidated(slot, invalidation)
        }
        try ReservedNames.check(snapshot.realm.schema, slot: slot, when: "The realm's schema at the slot's position \(snapshot.position)")
        let progress = ReplicationProgress(slotID: snapshot.slotID, position: snapshot.position, realmPath: realmPath)
        logger.notice("loading the realm's snapshot into PostgreSQL", metadata: [
            "slot": "\(slot)", "position": "\(snapshot.position)", "resynchronize": "\(resynchronizePending)"])
        let client = client, name = slot, logger = logger
        let began = ContinuousClock.now
        let loaded = try await withAbandoningDeadline(snapshotTimeout) {
            try await client.withTransaction(logger: logger) { connection in
                try await InitialSnapshot.load(snapshot, progress: progress, slot: name, on: connection, logger: logger)
            }
        }
        metrics.snapshotDuration.record(duration: ContinuousClock.now - began)
        metrics.snapshotRows.increment(by: loaded.rows)
        knownColumns.merge(loaded.columns) { $1 }
        resynchronizePending = false
        slotID = snapshot.slotID
        logger.notice("loaded the realm's snapshot into PostgreSQL", metadata: [
            "slot": "\(slot)", "position": "\(snapshot.position)", "rows": "\(loaded.rows)",
            "seconds": "\(ContinuousClock.now - began)", "dropped_tables": "\(loaded.dropped)"])
        return snapshot.position
    }

    /// Whether the operator asked for a resynchronization of the slot: it is invalidated with
    /// the reason ``Realm/ReplicationSlotInvalidation/Reason/resynchronizationRequested``
    /// (`realm-inspect resync-slot`, ``Realm/requestResynchronization(ofReplicationSlotNamed:)``).
    /// The sink then drops the progress row, creates the slot again and loads a snapshot.
    private func resynchronizationRequested(_ realm: Realm) throws -> Bool {
        _ = realm.refresh()
        return try ownSlot(in: realm)?.invalidation?.reason == .resynchronizationRequested
    }

    /// Thrown out of a batch's transaction when PostgreSQL's progress row is behind what this
    /// sink has applied (PostgreSQL restored under it; ``ReplicationProgress/lock(slot:slotID:notBehind:on:logger:)``
    /// checks it): the run starts again from the row.
    struct ProgressMovedBack: Error {
        let position: Realm.ReplicationPosition
    }

    /// Thrown out of a running stream when the operator asks for a resynchronization under it:
    /// the run starts again (no stop, no retry delay), and its start loads the snapshot.
    private struct ResynchronizationRequested: Error {}

    /// Deletes the slot's progress row: PostgreSQL then asks for a snapshot, whatever happens
    /// before the snapshot's transaction writes the row again.
    private func deleteProgress() async throws {
        let client = client, slot = slot, logger = logger
        try await withAbandoningDeadline(transactionTimeout) {
            _ = try await client.query("DELETE FROM realm_replication_progress WHERE slot = \(slot)", logger: logger)
        }
    }

    /// Whether the slot is to be confirmed now: `confirmEvery` commits applied since the last
    /// confirmation, which was `confirmInterval` ago or more, and none in flight.
    private var isConfirmationDue: Bool {
        unconfirmedCommits >= confirmEvery && !isConfirming
            && lastConfirmation.map { ContinuousClock.now - $0 >= confirmInterval } ?? true
    }

    /// Confirms the slot through the applied version.
    ///
    /// Batches may be applied while it waits for the realm's write (a deferred confirmation,
    /// ``confirmWhenDue(_:)``, runs beside the batches): it confirms the version applied when
    /// it began and counts off only the commits through it.
    private func confirm(_ realm: Realm) async throws {
        let version = appliedVersion, commits = unconfirmedCommits
        isConfirming = true
        defer { isConfirming = false }
        try await realm.asyncWrite { try realm.confirmReplicationSlot(named: slot, through: version) }
        confirmedVersion = max(confirmedVersion, version)
        unconfirmedCommits = max(0, unconfirmedCommits - commits)
        lastConfirmation = .now
    }

    /// Makes the confirmations the interval deferred once they are due (see
    /// ``isConfirmationDue``), until cancelled. A failure is logged: the next batch's
    /// confirmation meets it again and ends the attempt.
    private func confirmWhenDue(_ realm: Realm) async {
        while true {
            do { try await Task.sleep(for: confirmInterval) } catch { return }
            guard isConfirmationDue else { continue }
            do {
                try await confirm(realm)
            } catch {
                logger.warning("confirming the replication slot failed", metadata: ["slot": "\(slot)", "error": "\(String(reflecting: error))"])
            }
        }
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

    /// The slot's progress row (nil if there is none), after creating the progress table if it
    /// is missing or adding the identity columns to one an older sink made; abandoned as
    /// ``apply(_:)``'s transactions are.
    private func progress() async throws -> ReplicationProgress? {
        let client = client, slot = slot, logger = logger
        return try await withAbandoningDeadline(transactionTimeout) {
            try await client.withConnection { connection in
                for statement in ReplicationProgress.creation + DeadLetter.creation + MappedTables.creation {
                    try await connection.query(statement, logger: logger)
                }
                return try await ReplicationProgress.read(slot: slot, on: connection, logger: logger)
            }
        }
    }

    /// Applies commits, oldest first, in one PostgreSQL transaction with the progress row: those
    /// after the version the row holds, as their net effect (``ReplicationBatch``); the tables
    /// they need are created or extended in the same transaction. A transaction that has not
    /// finished after `transactionTimeout` is abandoned and fails (see
    /// ``withAbandoningDeadline(_:_:)``), as does one whose task is cancelled.
    func apply(_ commits: [Realm.Commit]) async throws {
        guard let last = commits.last else { return }
        let client = client, slot = slot, slotID = slotID, logger = logger, known = knownColumns
        let dropsRemovedColumns = dropsRemovedColumns, mapped = Set(knownColumns.keys), dropped = MappedTables.dropped(by: commits)
        let committed = appliedVersion
        let updated = try await withAbandoningDeadline(transactionTimeout) {
            try await Self.stopping {
                try await client.withTransaction(logger: logger) { connection -> [String: Set<String>]? in
                    let applied = try await ReplicationProgress.lock(slot: slot, slotID: slotID, notBehind: committed,
                                                                     on: connection, logger: logger).position.version
                    guard applied < last.version else { return nil }  // applied before: nothing to do
                    var known = known
                    // One batch per schema: a migration's commit starts a new one (ReplicationBatch).
                    for segment in ReplicationBatch.segments(commits.filter { $0.version > applied }) {
                        let statements: [BatchStatement]
                        (statements, known) = ReplicationBatch(segment).statements(known: known, dropsRemovedColumns: dropsRemovedColumns)
                        for statement in statements { try await statement.run(on: connection, logger: logger) }
                    }
                    try await MappedTables.record(Set(known.keys).subtracting(mapped), dropped: dropped, slot: slot, on: connection, logger: logger)
                    try await ReplicationProgress.update(slot: slot, to: last.position, on: connection, logger: logger)
                    return known
                }
            }
        }
        if let updated { knownColumns = updated }
    }

    /// `body`'s result; a ``ReplicationSinkError`` thrown inside a transaction (which
    /// postgres-nio wraps after rolling it back) thrown as itself.
    static func stopping<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            if let stop = error.closureError as? ReplicationSinkError { throw stop }
            if let movedBack = error.closureError as? ProgressMovedBack { throw movedBack }
            throw error
        }
    }
}
