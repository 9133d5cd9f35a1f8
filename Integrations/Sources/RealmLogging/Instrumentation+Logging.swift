public import Logging
public import RealmActors

extension Realm.Instrumentation {
    /// An instrumentation that writes each ``Realm/Event`` to `logger`, at a level that says
    /// whether someone should look:
    ///
    /// | event | level |
    /// |---|---|
    /// | a failed sync (`flushed` with an error) | `error` |
    /// | a version held too long; a commit slower than `slowCommit` | `warning` |
    /// | migration began and finished; compaction at open | `info` |
    /// | a handle opened | `debug` |
    /// | each commit, flush, statistics, notifier lag | `trace` |
    ///
    /// Numbers go in the metadata (`realm.latency_ms`, `realm.commits`, …), so they stay
    /// structured for a log backend.
    ///
    /// ```swift
    /// configuration.instrumentation = .logging(Logger(label: "orders.realm"))
    /// ```
    public static func logging(_ logger: Logger, slowCommit: Duration = .milliseconds(100),
                               heldVersionAlarm: Duration = .seconds(60)) -> Realm.Instrumentation {
        Realm.Instrumentation(heldVersionAlarm: heldVersionAlarm) { event in
            RealmLogging.log(event, to: logger, slowCommit: slowCommit)
        }
    }
}

/// The message, level and metadata of each event (see ``Realm/Instrumentation/logging(_:slowCommit:heldVersionAlarm:)``).
enum RealmLogging {
    static func milliseconds(_ duration: Duration) -> Logger.MetadataValue {
        let (seconds, attoseconds) = duration.components
        return .stringConvertible(Double(seconds) * 1_000 + Double(attoseconds) / 1e15)
    }

    static func log(_ event: Realm.Event, to logger: Logger, slowCommit: Duration) {
        switch event {
        case .opened(let duration):
            logger.debug("realm opened", metadata: ["realm.duration_ms": milliseconds(duration)])
        case .migrationStarted(let from, let to):
            logger.info("realm migration started", metadata: ["realm.from_schema_version": "\(from)", "realm.to_schema_version": "\(to)"])
        case .migrationFinished(let duration):
            logger.info("realm migration finished", metadata: ["realm.duration_ms": milliseconds(duration)])
        case .committed(let version, let latency):
            let metadata: Logger.Metadata = ["realm.version": "\(version)", "realm.latency_ms": milliseconds(latency)]
            if latency > slowCommit { logger.warning("slow realm commit", metadata: metadata) } else { logger.trace("realm commit", metadata: metadata) }
        case .flushed(let commits, let duration, let error):
            var metadata: Logger.Metadata = ["realm.commits": "\(commits)", "realm.duration_ms": milliseconds(duration)]
            if let error {
                metadata["realm.error"] = "\(error.localizedDescription)"
                logger.error("realm sync failed; its commits were not written", metadata: metadata)
            } else {
                logger.trace("realm sync", metadata: metadata)
            }
        case .fileStatistics(let statistics):
            logger.trace("realm file", metadata: [
                "realm.file_bytes": "\(statistics.fileBytes)", "realm.live_bytes": "\(statistics.liveBytes)",
                "realm.free_bytes": "\(statistics.freeBytes)", "realm.pinned_bytes": "\(statistics.pinnedBytes)",
                "realm.version": "\(statistics.version)", "realm.active_versions": "\(statistics.activeVersions)",
            ])
        case .versionHeld(let version, let age, let pinnedBytes):
            logger.warning("a realm version is held for too long: a snapshot or handle that does not advance keeps its pages from reuse", metadata: [
                "realm.version": "\(version)", "realm.age_ms": milliseconds(age), "realm.pinned_bytes": "\(pinnedBytes)",
            ])
        case .changesComputed(let version, let lag):
            logger.trace("realm changes computed", metadata: ["realm.version": "\(version)", "realm.lag_ms": milliseconds(lag)])
        case .compacted(let before, let after, let duration):
            logger.info("realm compacted", metadata: [
                "realm.bytes_before": "\(before)", "realm.bytes_after": "\(after)", "realm.duration_ms": milliseconds(duration),
            ])
        case .replicationSlotInvalidated(let slot, let invalidation):
            logger.error("a replication slot passed its retention limit and was invalidated: its consumer must start again from a snapshot", metadata: [
                "realm.slot": "\(slot)", "realm.reason": "\(invalidation.reason)", "realm.invalidated_at": "\(invalidation.date)",
            ])
        }
    }
}
