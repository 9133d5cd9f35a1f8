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
///
/// The gauges are set after each batch and while retrying, so a sink that is stuck (PostgreSQL
/// down) still shows its backlog growing.
struct ReplicationMetrics: Sendable {
    let commits, errors: Counter
    let batchDuration, lag: CoreMetrics.Timer
    let pendingCommits, lagSeconds, retainedBytes: Gauge

    init(slot: String, factory: any MetricsFactory) {
        let dimensions = [("slot", slot)]
        commits = Counter(label: "realm.replication.commits", dimensions: dimensions, factory: factory)
        errors = Counter(label: "realm.replication.errors", dimensions: dimensions, factory: factory)
        batchDuration = CoreMetrics.Timer(label: "realm.replication.batch.duration", dimensions: dimensions, factory: factory)
        lag = CoreMetrics.Timer(label: "realm.replication.lag", dimensions: dimensions, factory: factory)
        pendingCommits = Gauge(label: "realm.replication.pending_commits", dimensions: dimensions, factory: factory)
        lagSeconds = Gauge(label: "realm.replication.lag_seconds", dimensions: dimensions, factory: factory)
        retainedBytes = Gauge(label: "realm.replication.retained_bytes", dimensions: dimensions, factory: factory)
    }
}
