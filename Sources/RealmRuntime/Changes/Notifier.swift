/// The notifier of one file: an actor that, after each durable commit, brings every registered
/// observer to the new version — off the executors of the actors that write and observe.
///
/// Work per commit: it takes the commits' change logs from the file's ``ChangeFeed`` (never
/// diffing tables to find what changed — except for another process's commits, which reach a
/// process reading beside the writer without logs: ``VersionDiff`` compares the versions' trees), pins the new version once as a ``FrozenVersion``,
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
        /// The consumer parked in ``Notifier/next(_:)``, if any. Set by ``Notifier/park(_:_:)``
        /// and taken by ``wake()``, both on the notifier only (see ``Notifier/next(_:)``).
        var waiter: CheckedContinuation<Void, Never>?

        init(tracker: any ChangeTracker) { self.tracker = tracker }

        func wake() {
            waiter?.resume()
            waiter = nil
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
            // Parked in this same turn on the notifier, with no suspension since the checks
            // above, so no delivery can fall in between. Both closures are isolated to the
            // notifier because they capture `self` (the call to the isolated, synchronous
            // `park` makes the compiler check it): a closure in an actor's method that captures
            // only other values is nonisolated, and calling it leaves the actor. With
            // `{ entry.park($0) }` the consumer parked from a pool thread while the notifier,
            // free meanwhile, ran a catch-up whose wake-up raced the park on the unguarded
            // entry — and was lost (a stream that stopped: ChangeStreamTests
            // .aDeliveryRacingTheConsumersWaitIsNeverLost hung in about 3 runs in 25).
            await withTaskCancellationHandler {
                await withCheckedContinuation(isolation: self) { self.park(entry, $0) }
            } onCancel: {
                Task { await self.wakeForCancellation(id) }
            }
            guard entries[id] != nil else { return nil }
        }
    }

    /// Parks the consumer of `entry` until its next ``Entry/wake()``. Synchronous and isolated
    /// to the notifier, so only code running on the notifier can call it.
    private func park(_ entry: Entry, _ continuation: CheckedContinuation<Void, Never>) {
        entry.waiter = continuation
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
        // A schema change the observers cannot follow (another handle or process removed or
        // retyped a class or property: a migration) ends every stream with Realm's error, as it
        // stops the handles that made them (`Realm.read`): their queries and objects would be
        // evaluated against columns of other types.
        let unsupported = latest.catalog.unsupportedChanges(to: snapshot.catalog)
        if !unsupported.isEmpty { fail(RuntimeError(.schemaMismatch, SchemaCatalog.unsupportedChangesMessage(unsupported))) }
        let commits = file.changeFeed.takeChanges(through: version)
        var log = RowChangeLog()
        for commit in commits { log.append(commit.rows) }
        // Read after the snapshot began (which adopted any other process's newer version).
        let foreign = file.database.followsAnotherProcess || file.database.newestForeignVersion > latest.transaction
        // A schema change (a class's table created, a migration) keeps table trees and row keys,
        // so the log still says which objects changed; the version's own catalog resolves them.
        // Another process's commits have no log here: when the span holds one, the versions'
        // trees are compared instead (nil past its bound, or for damage: trackers then compare
        // values).
        let rows: RowChanges? = foreign
            ? (try? VersionDiff(from: latest.reader, to: snapshot.reader))??.changes
            : RowChanges(log)
        let context = VersionContext(snapshot: snapshot, changes: rows)
        for (id, entry) in entries where !entry.finished && entry.failure == nil {
            let silent = !commits.isEmpty && commits.allSatisfy { $0.silencedObservers.contains(id) }
            if entry.tracker.advance(context, silent: silent) { entry.wake() }
        }
        // A span with another process's commits has no complete log: the history starts again
        // after it, and a stream registered on an older baseline compares values.
        if foreign { history.removeAll() } else { history.append((latest.reader.transaction, version, log)) }
        while history.count > Self.historyLimit
                || (history.count > 1 && history.reduce(0, { $0 + $1.log.entryCount }) > Self.historyEntryLimit) {
            history.removeFirst()
        }
        latest = snapshot
        file.changeFeed.didProcess(version)
    }
}
