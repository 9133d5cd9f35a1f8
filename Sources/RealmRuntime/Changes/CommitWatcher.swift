import Foundation
import Synchronization

/// Follows another process's commits for a file this process reads beside a writing process: a
/// thread of its own waits for the writer's publishes (a futex on the lock file's signal word,
/// woken by every publish) and tells the file's ``ChangeFeed`` of each new version, as the local
/// flush does for this process's commits — so the notifier, change streams, `observe` callbacks,
/// autorefreshing handles and replication consumers advance to commits made elsewhere.
///
/// The thread waits at most `timeout` at a time (a lost wake-up costs that much latency, never a
/// missed version: the signal word is loaded before each adoption and the wait compares it) and ends when the file's
/// database closes (closing wakes it; the wait then throws) or ``stop()`` was called.
final class CommitWatcher: Sendable {
    private let stopped = Atomic<Bool>(false)
    static let timeoutNanoseconds: UInt64 = 1_000_000_000

    /// Starts watching `database`, a follower, for `feed`. The thread holds neither: while it
    /// waits it holds the lock file only, so the database detaches (and wakes it) when its last
    /// reference goes, whether or not `stop()` was called.
    init(database: Database, feed: ChangeFeed) {
        let stopped = Box(self)
        let thread = Thread { [weak database, weak feed] in
            guard let (lockFile, _) = (try? database?.followedLockFile()) ?? nil else { return }
            lockFile.watcherStarted()
            defer { lockFile.watcherStopped() }
            while !stopped.isStopped {
                // Loaded before adopting (see `LockFile.commitSignal`): a publish the adoption
                // misses moves the signal after this load, so the wait below returns for it; a
                // publish that cannot be adopted (a damaged lock file) is waited past, not spun on.
                let signal = lockFile.commitSignal
                // The database and feed are held only for the adoption, never across the wait.
                let adopted: Bool = {
                    guard let database, let feed, !stopped.isStopped else { return false }
                    do {
                        if let version = try database.adoptPublishedVersion() { feed.versionWasAdopted(version) }
                        return true
                    } catch {
                        return false  // closed, or a damaged lock file: readers report it when they begin
                    }
                }()
                guard adopted else { return }
                _ = lockFile.waitForSignal(changeFrom: signal, timeoutNanoseconds: Self.timeoutNanoseconds)
            }
        }
        thread.name = "RealmActors commit watcher"
        thread.start()
    }

    /// The stop flag, shared with the thread (the watcher itself may go first).
    private final class Box: Sendable {
        weak let watcher: CommitWatcher?
        init(_ watcher: CommitWatcher) { self.watcher = watcher }
        var isStopped: Bool { watcher?.stopped.load(ordering: .acquiring) ?? true }
    }

    /// Asks the thread to end; it does at its next wake-up (closing the database wakes it).
    func stop() {
        stopped.store(true, ordering: .releasing)
    }
}
