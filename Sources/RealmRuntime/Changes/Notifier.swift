/// The notifier of one file: an actor that, after each durable commit, brings every registered
/// observer to the new version — off the executors of the actors that write and observe.
///
/// Work per commit: it takes the commits' change logs from the file's ``ChangeFeed`` (never
/// diffing tables to find what changed), pins the new version once as a ``FrozenVersion``,
/// and advances each tracker, which skips the version entirely when no table it depends on was
/// touched. Delivery is pull-based: a consumer asks for its next element (`next()` of its
/// stream); the tracker has folded every version since its last element into one change, so
/// a slow consumer costs nothing but its tracker's newest state — nothing is buffered.
/// After a version is processed, autorefreshing handles advance to it (``ChangeFeed/didProcess(_:)``).
///
/// One notifier per file while anyone observes it: observers hold it, and the file's feed holds
/// it weakly.
package actor Notifier: VersionObserver {
    private final class Entry {
        let tracker: any ChangeTracker
        var deliveredInitial = false
        var finished = false
        var failure: RuntimeError?
        /// The consumer parked in ``Notifier/next(_:)``, if any.
        var waiter: CheckedContinuation<Void, Never>?
        /// A wake-up that found no consumer parked. `next(_:)` was seen suspended between finding
        /// no element and parking (logged in a hung W9 run; about one run in 30 lost a delivery
        /// there; which suspension lets the notifier in is not pinned down), so a delivery in
        /// that gap is kept here and the consumer, instead of parking, looks again.
        var wakePending = false

        init(tracker: any ChangeTracker) { self.tracker = tracker }

        func wake() {
            if let waiter {
                waiter.resume()
                self.waiter = nil
            } else {
                wakePending = true
            }
        }

        /// Parks `continuation` until the next ``wake()``, or resumes it at once if one came
        /// since the consumer last looked.
        func park(_ continuation: CheckedContinuation<Void, Never>) {
            if wakePending {
                wakePending = false
                continuation.resume()
            } else {
                waiter = continuation
            }
        }
    }

    package let file: SharedRealmFile
    /// The newest version processed.
    private var latest: FrozenVersion
    /// The logs of the last versions processed (each from the version before it), so a stream
    /// made from a live handle's slightly older version can be brought up to date with them.
    /// Bounded: at most `historyLimit` versions and `historyEntryLimit` log entries.
    private var history: [(from: TransactionID, to: TransactionID, log: RowChangeLog)] = []
    private static let historyLimit = 64
    private static let historyEntryLimit = 100_000
    private var entries: [UInt64: Entry] = [:]
    private var nextID: UInt64 = 0

    private init(file: SharedRealmFile, latest: FrozenVersion) {
        self.file = file
        self.latest = latest
    }

    /// The notifier of `file`, created (and made the file's change processor) if it has none.
    /// The file's ``ChangeFeed`` holds it weakly; observers hold it.
    package static func shared(for file: SharedRealmFile) throws -> Notifier {
        try file.changeFeed.processor { Notifier(file: file, latest: try FrozenVersion.newest(of: file)) }
    }

    // MARK: Registration and delivery

    /// Registers a tracker made at the newest version (the notifier first catches up with
    /// every durable commit) and returns its id.
    package func register(_ makeTracker: @Sendable (FrozenVersion) -> any ChangeTracker) -> UInt64 {
        catchUp()
        return add(makeTracker(latest))
    }

    /// Registers a tracker whose baseline is `baseline`, a version a live handle read when the
    /// stream was made: versions since then are reported against it — with their logs if the
    /// notifier still keeps them all, else by comparing values — and so is every later one.
    package func register(baseline: FrozenVersion, _ makeTracker: @Sendable () -> any ChangeTracker) -> UInt64 {
        catchUp()
        let tracker = makeTracker()
        let since = baseline.reader.transaction
        if latest.reader.transaction > since {
            // The logs since the baseline, if kept (else the tracker compares values).
            let missed = history.drop { $0.to <= since }
            var log = RowChangeLog()
            for entry in missed { log.append(entry.log) }
            let covered = missed.first.map { $0.from <= since } ?? false
            tracker.advance(VersionContext(snapshot: latest, changes: covered ? RowChanges(log) : nil), silent: false)
        }
        return add(tracker)
    }

    private func add(_ tracker: any ChangeTracker) -> UInt64 {
        nextID += 1
        entries[nextID] = Entry(tracker: tracker)
        file.changeFeed.observerAdded()
        return nextID
    }

    /// The next element of observer `id`: its initial element first, then each change as it
    /// comes (waiting for one). Nil when the stream has ended or the task was cancelled.
    package func next(_ id: UInt64) async -> ChangeElement? {
        guard let entry = entries[id] else { return nil }
        if !entry.deliveredInitial {
            entry.deliveredInitial = true
            if let initial = entry.tracker.initialElement() { return initial }
        }
        while true {
            entry.wakePending = false  // what follows sees everything delivered so far
            if entry.finished {
                unregister(id)
                return nil
            }
            if let failure = entry.failure {
                entry.finished = true
                if let element = entry.tracker.errorElement(failure) { return element }
                continue
            }
            if let (element, isLast) = entry.tracker.takeElement() {
                entry.finished = isLast
                return element
            }
            if Task.isCancelled {
                unregister(id)
                return nil
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { entry.park($0) }
            } onCancel: {
                Task { await self.wakeForCancellation(id) }
            }
            guard entries[id] != nil else { return nil }
        }
    }

    private func wakeForCancellation(_ id: UInt64) {
        entries[id]?.wake()
    }

    /// Ends observer `id` (its stream was dropped or cancelled, or a token invalidated).
    package func unregister(_ id: UInt64) {
        guard let entry = entries.removeValue(forKey: id) else { return }
        file.changeFeed.observerRemoved()
        entry.wake()
    }

    /// Ends every stream with `error` (delivered as its error element, if it has one): the
    /// newest version could not be read.
    package func fail(_ error: RuntimeError) {
        for entry in entries.values {
            entry.failure = error
            entry.wake()
        }
    }

    // MARK: Processing versions

    package nonisolated func versionDidBecomeDurable(_ version: TransactionID) {
        Task { await self.catchUp() }
    }

    /// Brings every tracker to the newest durable version, with the logs of the commits since
    /// the last one processed; then lets autorefreshing handles advance.
    private func catchUp() {
        let snapshot: FrozenVersion
        do {
            snapshot = try FrozenVersion.newest(of: file)
        } catch {
            fail(error as? RuntimeError ?? RuntimeError(.fail, "The realm can no longer be read: \(error)"))
            return
        }
        let version = snapshot.transaction
        guard version > latest.transaction else { return }
        let commits = file.changeFeed.takeChanges(through: version)
        var log = RowChangeLog()
        for commit in commits { log.append(commit.rows) }
        let rows = RowChanges(log)
        // A schema change (a class's table created, a migration) keeps table trees and row keys,
        // so the log still says which objects changed; the version's own catalog resolves them.
        let context = VersionContext(snapshot: snapshot, changes: rows)
        for (id, entry) in entries where !entry.finished && entry.failure == nil {
            let silent = !commits.isEmpty && commits.allSatisfy { $0.silencedObservers.contains(id) }
            if entry.tracker.advance(context, silent: silent) { entry.wake() }
        }
        history.append((latest.reader.transaction, version, log))
        while history.count > Self.historyLimit
                || (history.count > 1 && history.reduce(0, { $0 + $1.log.entryCount }) > Self.historyEntryLimit) {
            history.removeFirst()
        }
        latest = snapshot
        file.changeFeed.didProcess(version)
    }
}
