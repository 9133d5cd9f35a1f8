internal import RealmRuntime

extension Realm {
    /// What a realm reports for logs and metrics: a `Sendable` sink for ``Event``s, set in
    /// ``Configuration/instrumentation``. No dependency: the swift-log and swift-metrics bridges
    /// of the Integrations package are such sinks, and so is a closure of your own.
    ///
    /// ```swift
    /// var configuration = Realm.Configuration(fileURL: url)
    /// configuration.instrumentation = Realm.Instrumentation { event in
    ///     if case .committed(_, let latency) = event, latency > .milliseconds(20) {
    ///         print("slow commit: \(latency)")
    ///     }
    /// }
    /// ```
    ///
    /// Events about the file (``Event/flushed(commits:duration:error:)``, ``Event/fileStatistics(_:)``,
    /// ``Event/versionHeld(version:age:pinnedBytes:)``, ``Event/changesComputed(version:lag:)``,
    /// ``Event/compacted(bytesBefore:bytesAfter:duration:)``) go to the instrumentation of the
    /// first handle that opened the file in the process, as ``Configuration/maximumNumberOfActiveVersions``
    /// is the first handle's; events about one handle (``Event/opened(duration:)``,
    /// ``Event/committed(version:latency:)``, migrations) to that handle's.
    ///
    /// The sink is called synchronously where the event happens — on a writer's thread after a
    /// sync, on the notifier's executor — so it must be quick and must not open or write realms;
    /// hand the event off (to a logger, a metrics counter, an `AsyncStream`) and return.
    public struct Instrumentation: Sendable {
        /// Called with each event.
        public var sink: @Sendable (Event) -> Void
        /// How long an old version may stay pinned (by a handle that does not refresh, a frozen
        /// snapshot kept, a change stream nobody reads) before ``Event/versionHeld(version:age:pinnedBytes:)``
        /// reports it. 60 seconds by default.
        public var heldVersionAlarm: Duration
        /// The shortest interval between two ``Event/fileStatistics(_:)`` (reported after commits).
        /// One second by default.
        public var statisticsInterval: Duration

        /// An instrumentation calling `sink` with every event.
        public init(heldVersionAlarm: Duration = .seconds(60), statisticsInterval: Duration = .seconds(1),
                    _ sink: @escaping @Sendable (Event) -> Void) {
            self.sink = sink
            self.heldVersionAlarm = heldVersionAlarm
            self.statisticsInterval = statisticsInterval
        }
    }

    /// An event or measurement a realm reports to its ``Instrumentation``.
    public enum Event: Sendable {
        /// A handle opened, taking `duration` (opening the file if it was the first handle,
        /// compaction and migration included).
        case opened(duration: Duration)
        /// A migration began: the file's schema version and the configuration's.
        case migrationStarted(fromSchemaVersion: UInt64, toSchemaVersion: UInt64)
        /// The migration block ran and the new schema was checked, taking `duration` (its commit
        /// follows, reported as ``committed(version:latency:)``).
        case migrationFinished(duration: Duration)
        /// A write transaction of this handle committed `version`, durable `latency` after
        /// `commitWrite` (or the end of a `write`/`asyncWrite` block) began.
        case committed(version: UInt64, latency: Duration)
        /// One disk sync made `commits` commits durable (group commit), its writes and sync
        /// taking `duration`; `error` if it failed (then every commit of the batch failed).
        case flushed(commits: Int, duration: Duration, error: Realm.Error?)
        /// The file's pages after commits (at most once per ``Instrumentation/statisticsInterval``).
        case fileStatistics(FileStatistics)
        /// An old version has been pinned for `age` since a newer one replaced it — longer than
        /// ``Instrumentation/heldVersionAlarm`` — keeping `pinnedBytes` from reuse: a snapshot
        /// held for too long. Reported once per version.
        case versionHeld(version: UInt64, age: Duration, pinnedBytes: UInt64)
        /// The notifier computed the changes of `version` for change streams and observers,
        /// `lag` after it became durable — for another process's commit, after this process
        /// learnt of it.
        case changesComputed(version: UInt64, lag: Duration)
        /// The file was compacted as it opened (``Configuration/shouldCompactOnLaunch``).
        case compacted(bytesBefore: UInt64, bytesAfter: UInt64, duration: Duration)
        /// A durable commit invalidated replication slot `slot`, which passed a retention limit
        /// (``Realm/ReplicationRetentionLimits``): its consumer must start again from a snapshot.
        case replicationSlotInvalidated(slot: String, invalidation: Realm.ReplicationSlotInvalidation)
    }

    /// Reports `event` to this handle's instrumentation, if any.
    func report(_ event: @autoclosure () -> Event) {
        configuration.instrumentation?.sink(event())
    }
}

extension Realm.Instrumentation {
    /// The runtime's form: file events mapped to public ones.
    func fileInstrumentation(_ configuration: Realm.Configuration) -> FileInstrumentation {
        let sink = self.sink
        let isEncrypted = configuration.encryptionKey != nil
        return FileInstrumentation(heldVersionAlarm: heldVersionAlarm, statisticsInterval: statisticsInterval) { event in
            switch event {
            case .flushed(let commits, let duration, let failure):
                sink(.flushed(commits: commits, duration: duration,
                              error: failure.map { Realm.Error.from($0, configuration: configuration) as? Realm.Error ?? Realm.Error(.fail, "\($0)") }))
            case .changesComputed(let version, let lag):
                sink(.changesComputed(version: version, lag: lag))
            case .space(let usage, let newest, let activeVersions):
                sink(.fileStatistics(Realm.FileStatistics(usage: usage, version: newest, activeVersions: activeVersions,
                                                          isEncrypted: isEncrypted, logRecordsReplayed: 0)))
            case .versionHeld(let version, let age, let pinnedBytes):
                sink(.versionHeld(version: version, age: age, pinnedBytes: pinnedBytes))
            case .compacted(let before, let after, let duration):
                sink(.compacted(bytesBefore: before, bytesAfter: after, duration: duration))
            case .replicationSlotInvalidated(let slot):
                if let invalidation = Realm.ReplicationSlotInvalidation(slot) {
                    sink(.replicationSlotInvalidated(slot: slot.name, invalidation: invalidation))
                }
            }
        }
    }
}
