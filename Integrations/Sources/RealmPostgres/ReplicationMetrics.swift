import CoreMetrics
import Foundation

/// The sink's swift-metrics, made once per sink (a metric's handler is looked up when it is
/// made), each with the dimension `slot`:
///
/// | metric | kind | what |
/// |---|---|---|
/// | `realm.replication.commits` | counter | commits applied in PostgreSQL |
/// | `realm.replication.batch.duration` | timer | each PostgreSQL transaction, begin to commit |
/// | `realm.replication.lag` | timer | per batch: its newest commit made in the realm → committed in PostgreSQL |
/// | `realm.replication.pending_commits` | gauge | commits made but not yet applied in PostgreSQL |
/// | `realm.replication.lag_seconds` | gauge | how stale PostgreSQL is: the oldest commit it lacks was made this long ago (0 when caught up) |
/// | `realm.replication.retained_bytes` | gauge | bytes the realm file keeps for its slots |
/// | `realm.replication.errors` | counter | failed attempts (each retried after a backoff) |
/// | `realm.replication.dead_letters` | counter | rows PostgreSQL refused, set aside in `realm_replication_dead_letters` (``DeadLetter``) |
/// | `realm.replication.stops` | counter | stops (``PostgresReplicationSink/run()`` threw), with the dimension `reason`: a ``ReplicationSinkError/Reason`` raw value, or `realm_error` |
/// | `realm.replication.snapshot.rows` | counter | objects loaded by initial snapshots and resynchronizations |
/// | `realm.replication.snapshot.duration` | timer | each snapshot's PostgreSQL transaction |
///
/// The gauges are set after each batch and while retrying, so a sink that is stuck (PostgreSQL
/// down) still shows its backlog growing.
struct ReplicationMetrics: Sendable {
    let commits, errors, deadLetters, snapshotRows: Counter
    let batchDuration, lag, snapshotDuration: CoreMetrics.Timer
    let pendingCommits, lagSeconds, retainedBytes: Gauge
    let slot: String
    let factory: any MetricsFactory

    init(slot: String, factory: any MetricsFactory) {
        self.slot = slot
        self.factory = factory
        let dimensions = [("slot", slot)]
        commits = Counter(label: "realm.replication.commits", dimensions: dimensions, factory: factory)
        errors = Counter(label: "realm.replication.errors", dimensions: dimensions, factory: factory)
        deadLetters = Counter(label: "realm.replication.dead_letters", dimensions: dimensions, factory: factory)
        batchDuration = CoreMetrics.Timer(label: "realm.replication.batch.duration", dimensions: dimensions, factory: factory)
        lag = CoreMetrics.Timer(label: "realm.replication.lag", dimensions: dimensions, factory: factory)
        pendingCommits = Gauge(label: "realm.replication.pending_commits", dimensions: dimensions, factory: factory)
        lagSeconds = Gauge(label: "realm.replication.lag_seconds", dimensions: dimensions, factory: factory)
        retainedBytes = Gauge(label: "realm.replication.retained_bytes", dimensions: dimensions, factory: factory)
        snapshotRows = Counter(label: "realm.replication.snapshot.rows", dimensions: dimensions, factory: factory)
        snapshotDuration = CoreMetrics.Timer(label: "realm.replication.snapshot.duration", dimensions: dimensions, factory: factory)
    }

    /// Counts a stop (made when it happens: a sink stops at most once per run).
    func stopped(reason: String) {
        Counter(label: "realm.replication.stops", dimensions: [("slot", slot), ("reason", reason)], factory: factory).increment()
    }
}
