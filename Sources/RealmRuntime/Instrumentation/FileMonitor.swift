
/// What the runtime reports about one file, for logs and metrics (the public `Realm.Event`s that
/// concern the file rather than one handle).
package enum FileEvent: Sendable {
    /// A flush made `commits` commits durable with one sync (a group commit), taking `duration`
    /// (writes and sync); `failure` if it failed, and then every commit of the batch failed.
    case flushed(commits: Int, duration: Duration, failure: (any Error)?)
    /// The notifier finished computing the changes of `version`, `lag` after it became durable.
    case changesComputed(version: TransactionID, lag: Duration)
    /// How the file's pages are used after a flush, at most once per ``FileInstrumentation/statisticsInterval``.
    case space(SpaceUsage, newestVersion: TransactionID, activeVersions: Int)
    /// Version `version` has been pinned (by a handle, a frozen snapshot, a notifier) for `age`
    /// since a newer version replaced it: longer than ``FileInstrumentation/heldVersionAlarm``.
    /// Reported once per version.
    case versionHeld(version: TransactionID, age: Duration, pinnedBytes: UInt64)
    /// The file was compacted when it opened.
    case compacted(bytesBefore: UInt64, bytesAfter: UInt64, duration: Duration)
    /// A durable commit invalidated a replication slot that passed a retention limit.
    case replicationSlotInvalidated(ReplicationSlot)
}

/// Where a file's events go, and when to raise the two that are judgements.
package struct FileInstrumentation: Sendable {
    package var sink: @Sendable (FileEvent) -> Void
    package var heldVersionAlarm: Duration
    package var statisticsInterval: Duration

    package init(heldVersionAlarm: Duration, statisticsInterval: Duration, sink: @escaping @Sendable (FileEvent) -> Void) {
        self.sink = sink
        self.heldVersionAlarm = heldVersionAlarm
        self.statisticsInterval = statisticsInterval
    }
}

/// Turns what a file's writer and notifier do into ``FileEvent``s for its instrumentation.
///
/// Lifecycle: made with the ``SharedRealmFile`` (only if the first handle to open the file gave
/// an instrumentation); told by ``GroupCommit``, on the flushing thread, when a version becomes
/// durable (before the feed and the writers are) and after each flush; by ``ChangeFeed`` when
/// the commit watcher adopted another process's version (before the notifier is told) and when
/// the notifier has processed a version; never calls back into either.
///
/// State, guarded by `state`'s lock: when each recent version became durable here (ascending by
/// version; pruned below the oldest pinned version after a flush, and to the newest 4,096 in a
/// process that only follows others' commits and never flushes), when space was last reported,
/// the newest version alarmed about.
/// The sink is called outside the lock.
package final class FileMonitor: Sendable {
    private struct State {
        /// (version, when it became durable), ascending; what a held version's age and a
        /// notification's lag are measured from.
        var durableAt: [(version: TransactionID, at: ContinuousClock.Instant)] = []
        var lastSpaceReport: ContinuousClock.Instant?
        /// Versions up to this one were reported held already.
        var alarmedThrough: TransactionID = 0
        /// Slots that prepared commits invalidated, by commit: reported once the commit is
        /// durable, dropped if its flush fails (the slot is then still valid).
        var invalidations: [(version: TransactionID, slots: [ReplicationSlot])] = []
    }

    /// The most `durableAt` entries kept.
    private static let durableEntries = 4_096

    private let instrumentation: FileInstrumentation
    private let database: Database
    private let state = Lock(State())

    package init(_ instrumentation: FileInstrumentation, database: Database) {
        self.instrumentation = instrumentation
        self.database = database
    }

    /// Notes when `version` became durable, or was adopted from another process: called before
    /// anyone is told of it, so that the notifier's lag is measured from here.
    func versionBecameDurable(_ version: TransactionID) {
        let now = ContinuousClock.now
        let invalidated = state.withLock { state -> [ReplicationSlot] in
            // In order of version: an adopted version can arrive after a newer commit of this
            // process was flushed (the watcher adopts, then this process writes and flushes before
            // the watcher gets here).
            let index = state.durableAt.lastIndex { $0.version < version }.map { $0 + 1 } ?? 0
            state.durableAt.insert((version, now), at: index)
            if state.durableAt.count > Self.durableEntries { state.durableAt.removeFirst(state.durableAt.count - Self.durableEntries) }
            guard !state.invalidations.isEmpty else { return [] }
            let durable = state.invalidations.filter { $0.version <= version }.flatMap(\.slots)
            state.invalidations.removeAll { $0.version <= version }
            return durable
        }
        for slot in invalidated { instrumentation.sink(.replicationSlotInvalidated(slot)) }
    }

    /// Notes that prepared commit `version` invalidated `slots`, to report once it is durable.
    func commitInvalidated(_ slots: [ReplicationSlot], at version: TransactionID) {
        state.withLock { $0.invalidations.append((version, slots)) }
    }

    /// Reports a flush; after one that made versions durable, the space statistics (if due) and
    /// a version held for too long (if any).
    func didFlush(commits: Int, duration: Duration, failure: (any Error)?) {
        if failure != nil {
            // The batch's commits are gone, and with them their invalidations; a later commit
            // finds the slot past its limit again.
            let durable = database.latestTransaction
            state.withLock { $0.invalidations.removeAll { $0.version > durable } }
        }
        instrumentation.sink(.flushed(commits: commits, duration: duration, failure: failure))
        guard commits > 0 else { return }
        let now = ContinuousClock.now
        let newest = database.latestTransaction
        let oldestPinned = database.oldestPinnedTransaction
        var held: (version: TransactionID, age: Duration)?
        let reportSpace = state.withLock { state -> Bool in
            // A pinned version's age counts from when the next version became durable.
            if let oldestPinned, oldestPinned < newest, oldestPinned > state.alarmedThrough,
               let replaced = state.durableAt.first(where: { $0.version > oldestPinned }),
               now - replaced.at > instrumentation.heldVersionAlarm {
                held = (oldestPinned, now - replaced.at)
                state.alarmedThrough = oldestPinned
            }
            // Entries older than what the oldest pin needs, and beyond a bound, are dropped.
            let keepFrom = oldestPinned ?? newest
            if let firstNeeded = state.durableAt.firstIndex(where: { $0.version > keepFrom }), firstNeeded > 0 {
                state.durableAt.removeFirst(firstNeeded - 1)
            }
            if state.durableAt.count > Self.durableEntries { state.durableAt.removeFirst(state.durableAt.count - Self.durableEntries) }
            guard state.lastSpaceReport.map({ now - $0 >= instrumentation.statisticsInterval }) ?? true else { return false }
            state.lastSpaceReport = now
            return true
        }
        let usage = reportSpace || held != nil ? database.spaceUsage : nil
        if let held, let usage {
            instrumentation.sink(.versionHeld(version: held.version, age: held.age, pinnedBytes: usage.heldBytes))
        }
        if reportSpace, let usage {
            instrumentation.sink(.space(usage, newestVersion: newest, activeVersions: database.activeVersionCount))
        }
    }

    /// The notifier has processed `version`: reports how long after it became durable.
    func didProcess(_ version: TransactionID) {
        let now = ContinuousClock.now
        let durable = state.withLock { state in state.durableAt.last(where: { $0.version <= version })?.at }
        guard let durable else { return }
        instrumentation.sink(.changesComputed(version: version, lag: now - durable))
    }

    /// Reports a compaction at open.
    func didCompact(bytesBefore: UInt64, bytesAfter: UInt64, duration: Duration) {
        instrumentation.sink(.compacted(bytesBefore: bytesBefore, bytesAfter: bytesAfter, duration: duration))
    }
}
