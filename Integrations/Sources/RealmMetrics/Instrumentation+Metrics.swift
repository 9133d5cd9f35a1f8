public import CoreMetrics
import Metrics
public import RealmActors

extension Realm.Instrumentation {
    /// An instrumentation that records each ``Realm/Event`` in swift-metrics, under `label`
    /// (`realm` by default) with `dimensions` (say, the file's name):
    ///
    /// | metric | kind | from |
    /// |---|---|---|
    /// | `realm.open.duration` | timer | a handle opened |
    /// | `realm.commit.latency` | timer | each commit, until durable |
    /// | `realm.flush.duration` | timer | each group commit's writes and sync |
    /// | `realm.flush.commits` | recorder (histogram) | commits per sync |
    /// | `realm.flush.failures` | counter | failed syncs |
    /// | `realm.notifier.lag` | timer | durable → changes computed |
    /// | `realm.file.bytes`, `.live_bytes`, `.free_bytes`, `.pinned_bytes` | gauges | file statistics |
    /// | `realm.versions.active` | gauge | versions live in the process |
    /// | `realm.versions.held` | counter | versions held longer than the alarm |
    /// | `realm.migrations`, `realm.compactions` | counters | |
    /// | `realm.replication.slots_invalidated` | counter | slots a retention limit invalidated |
    ///
    /// `factory` is the process's `MetricsSystem` unless given (tests pass a `TestMetrics`).
    public static func metrics(label: String = "realm", dimensions: [(String, String)] = [],
                               heldVersionAlarm: Duration = .seconds(60),
                               factory: any MetricsFactory = MetricsSystem.factory) -> Realm.Instrumentation {
        let metrics = RealmMetricSet(label: label, dimensions: dimensions, factory: factory)
        return Realm.Instrumentation(heldVersionAlarm: heldVersionAlarm) { event in metrics.record(event) }
    }
}

/// The metrics of one instrumentation, made once (a metric's handler is looked up when it is made).
struct RealmMetricSet: Sendable {
    let openDuration, commitLatency, flushDuration, notifierLag: Metrics.Timer
    let flushCommits: Recorder
    let flushFailures, versionsHeld, migrations, compactions, slotsInvalidated: Counter
    let fileBytes, liveBytes, freeBytes, pinnedBytes, activeVersions: Gauge

    init(label: String, dimensions: [(String, String)], factory: any MetricsFactory) {
        func name(_ suffix: String) -> String { "\(label).\(suffix)" }
        openDuration = Metrics.Timer(label: name("open.duration"), dimensions: dimensions, factory: factory)
        commitLatency = Metrics.Timer(label: name("commit.latency"), dimensions: dimensions, factory: factory)
        flushDuration = Metrics.Timer(label: name("flush.duration"), dimensions: dimensions, factory: factory)
        notifierLag = Metrics.Timer(label: name("notifier.lag"), dimensions: dimensions, factory: factory)
        flushCommits = Recorder(label: name("flush.commits"), dimensions: dimensions, aggregate: true, factory: factory)
        flushFailures = Counter(label: name("flush.failures"), dimensions: dimensions, factory: factory)
        versionsHeld = Counter(label: name("versions.held"), dimensions: dimensions, factory: factory)
        migrations = Counter(label: name("migrations"), dimensions: dimensions, factory: factory)
        compactions = Counter(label: name("compactions"), dimensions: dimensions, factory: factory)
        slotsInvalidated = Counter(label: name("replication.slots_invalidated"), dimensions: dimensions, factory: factory)
        fileBytes = Gauge(label: name("file.bytes"), dimensions: dimensions, factory: factory)
        liveBytes = Gauge(label: name("file.live_bytes"), dimensions: dimensions, factory: factory)
        freeBytes = Gauge(label: name("file.free_bytes"), dimensions: dimensions, factory: factory)
        pinnedBytes = Gauge(label: name("file.pinned_bytes"), dimensions: dimensions, factory: factory)
        activeVersions = Gauge(label: name("versions.active"), dimensions: dimensions, factory: factory)
    }

    func record(_ event: Realm.Event) {
        switch event {
        case .opened(let duration): openDuration.record(duration: duration)
        case .migrationStarted: migrations.increment()
        case .migrationFinished: break
        case .committed(_, let latency): commitLatency.record(duration: latency)
        case .flushed(let commits, let duration, let error):
            if error != nil {
                flushFailures.increment()
            } else {
                flushDuration.record(duration: duration)
                flushCommits.record(commits)
            }
        case .fileStatistics(let statistics):
            fileBytes.record(statistics.fileBytes)
            liveBytes.record(statistics.liveBytes)
            freeBytes.record(statistics.freeBytes)
            pinnedBytes.record(statistics.pinnedBytes)
            activeVersions.record(statistics.activeVersions)
        case .versionHeld: versionsHeld.increment()
        case .changesComputed(_, let lag): notifierLag.record(duration: lag)
        case .compacted: compactions.increment()
        case .replicationSlotInvalidated: slotsInvalidated.increment()
        }
    }
}
