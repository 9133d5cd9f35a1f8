import Foundation
import Synchronization

/// Follows another process's commits for a file this process reads beside a writing process: a
/// thread of its own waits for the writer's publishes (a futex on the lock file's signal word,
/// woken by every publish) and tells the file's ``ChangeFeed`` of each new version, as the local
/// flush does for this process's commits — so the notifier, change streams, `observe` callbacks,
/// autorefreshing handles and replication consumers advance to commits made elsewhere.
///
/// The thread waits at most `timeout` at a time (a lost wake-up costs that much latency, never a
/// missed version: each wait re-reads the lock file's counter first) and ends when the file's
/// database closes (closing wakes it; the wait then throws) or ``stop()`` was called.
final class CommitWatcher: Sendable {
    private let stopped = Atomic<Bool>(false)
    static let timeoutNanoseconds: UInt64 = 1_000_000_000

    private let database: Database
    private let feed: ChangeFeed

    /// Starts watching `database`, a follower, for `feed`. The thread holds the watcher until it
    /// ends.
    init(database: Database, feed: ChangeFeed) {
        self.database = database
        self.feed = feed
        database.watcherStarted()
        let thread = Thread { [self] in run() }
        thread.name = "RealmActors commit watcher"
        thread.start()
    }

    private func run() {
        defer { database.watcherStopped() }
        while !stopped.load(ordering: .acquiring) {
            do {
                if let version = try database.waitForForeignVersion(timeoutNanoseconds: Self.timeoutNanoseconds) {
                    feed.versionDidBecomeDurable(version)
                }
            } catch {
                return  // closed
            }
        }
    }

    /// Asks the thread to end; it does at its next wake-up (closing the database wakes it).
    func stop() {
        stopped.store(true, ordering: .releasing)
    }
}
