import Synchronization

/// What one commit changed, as the notifier needs it.
package struct CommitChanges: Sendable {
    /// The rows the commit inserted, removed and updated, as it edited them. A commit that
    /// changed the schema needs nothing more: tables keep their trees and rows their keys, and
    /// the notifier resolves the log with the version's own schema.
    package var rows: RowChangeLog
    /// Observers (by registration id) that must not be notified of this commit
    /// (`write(withoutNotifying:)`).
    package var silencedObservers: Set<UInt64>

    package init(rows: RowChangeLog, silencedObservers: Set<UInt64>) {
        self.rows = rows
        self.silencedObservers = silencedObservers
    }
}

/// The path from commits to observers for one file: each commit's change log waits here, by
/// transaction, until its version is durable; then the processor (the notifier) takes the logs
/// of every version up to what it reads, computes notifications, and lets the version observers
/// (autorefreshing handles) advance — so an observer's snapshot and its handle agree.
///
/// A log is recorded *before* its commit is prepared, so whichever version a processor reads,
/// the logs of every commit in it are here. Logs of commits that failed are dropped unread.
package final class ChangeFeed: Sendable {
    private struct State {
        var pending: [(transaction: TransactionID, changes: CommitChanges)] = []
        /// The file's notifier, held weakly: it lives while someone observes.
        weak var processor: (any VersionObserver)?
    }

    private let database: Database
    /// Guarded by its own lock; the processor and the version observers are called outside it.
    private let state = Lock(State())
    private let observerCount = Atomic<Int>(0)
    /// Told after the processor has handled each version (or at once when there is none).
    package let versionObservers: VersionObservers

    /// Told when the processor has handled a version (the notifier's lag).
    private let monitor: FileMonitor?

    init(database: Database, versionObservers: VersionObservers, monitor: FileMonitor?) {
        self.database = database
        self.versionObservers = versionObservers
        self.monitor = monitor
    }

    /// Keeps the log of the commit `transaction` (call before preparing it).
    package func record(_ changes: CommitChanges, for transaction: TransactionID) {
        state.withLock { $0.pending.append((transaction, changes)) }
    }

    /// Drops the log of a commit that will not happen (its prepare failed).
    package func discard(_ transaction: TransactionID) {
        state.withLock { $0.pending.removeAll { $0.transaction == transaction } }
    }

    /// The file's processor (its notifier): the one that lives, or a new one from `make`, made
    /// under the feed's lock so that a file never has two. The feed holds it weakly — the
    /// observers hold it — so this is the one registry of notifiers. When told a version is
    /// durable, the processor takes the changes with ``takeChanges(through:)`` and ends by
    /// calling ``didProcess(_:)``.
    package func processor<Processor: VersionObserver>(orMake make: () throws -> Processor) throws -> Processor {
        try state.withLock { state in
            if let processor = state.processor as? Processor { return processor }
            let processor = try make()
            state.processor = processor
            return processor
        }
    }

    /// Removes and returns the logs of the durable commits up to `version`, oldest first
    /// (logs of failed commits are dropped).
    package func takeChanges(through version: TransactionID) -> [CommitChanges] {
        let taken = state.withLock { state in
            let split = state.pending.partition { $0.transaction > version }
            defer { state.pending.removeFirst(split) }
            return Array(state.pending[..<split]).sorted { $0.transaction < $1.transaction }
        }
        return taken.filter { database.durability(of: $0.transaction) == true }.map(\.changes)
    }

    /// Another process's `version`, which this process's commit watcher adopted: as
    /// ``versionDidBecomeDurable(_:)``, the notifier's lag (`changesComputed`) measured from here —
    /// the moment this process learnt of it; the commit's own sync happened in the other process.
    func versionWasAdopted(_ version: TransactionID) {
        monitor?.versionBecameDurable(version)
        versionDidBecomeDurable(version)
    }

    func versionDidBecomeDurable(_ version: TransactionID) {
        if let processor = state.withLock({ $0.processor }) { return processor.versionDidBecomeDurable(version) }
        // Nobody observes: the logs up to here are not needed.
        state.withLock { state in state.pending.removeAll { $0.transaction <= version } }
        versionObservers.notify(version)
    }

    /// The processor has delivered `version`: autorefreshing handles may advance to it.
    package func didProcess(_ version: TransactionID) {
        monitor?.didProcess(version)
        versionObservers.notify(version)
    }

    /// Registered change observers (streams and callbacks) of this file, for diagnostics.
    package var numberOfObservers: Int { observerCount.load(ordering: .relaxed) }

    package func observerAdded() { observerCount.add(1, ordering: .relaxed) }
    package func observerRemoved() { observerCount.subtract(1, ordering: .relaxed) }
}
