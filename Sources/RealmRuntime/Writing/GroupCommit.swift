import Dispatch
import Synchronization

/// Makes prepared commits durable, several per disk sync (group commit), and tells each writer
/// when its own commit is.
///
/// A writer prepares its transaction (``WriteTransaction/prepare()``) under the write lock,
/// releases the lock — so the next writer builds on it at once — and then waits here. One flush
/// at a time runs on a dedicated queue (a sync blocks a thread for a disk round trip, which must
/// not be a cooperative one): it writes and syncs every commit prepared so far. Writers that
/// prepared while it ran are covered by the next flush, which starts as soon as it ends; so under
/// load each sync covers everything that queued during the previous one.
///
/// Each waiter resumes when its commit is durable, or throws if the flush covering it failed
/// (every commit of a failed batch fails; after a failed sync, every later one too).
package final class GroupCommit: Sendable {
    private struct State {
        /// Writers waiting for their commit, oldest first.
        var waiters: [(transaction: TransactionID, continuation: CheckedContinuation<Void, any Error>)] = []
        var isFlushing = false
        /// The error of the last failed flush, for commits it discarded.
        var lastFailure: (any Error)?
    }

    private let database: Database
    private let queue: DispatchQueue
    /// Guarded by its own lock; continuations are resumed and `onDurable` called outside it.
    private let state = Mutex(State())
    /// Called after each flush that made a new version durable, with that version.
    private let onDurable: @Sendable (TransactionID) -> Void

    package init(database: Database, label: String, onDurable: @escaping @Sendable (TransactionID) -> Void) {
        self.database = database
        queue = DispatchQueue(label: "RealmActors.commit.\(label)")
        self.onDurable = onDurable
    }

    /// Suspends until commit `transaction` is durable.
    ///
    /// Not cancellable: the commit is already on its way to the disk, and the caller must learn
    /// whether it got there.
    package func waitUntilDurable(_ transaction: TransactionID, isolation: isolated (any Actor)? = #isolation) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Bool, any Error>? = state.withLock { state in
                switch database.durability(of: transaction) {
                case true?: return .success(true)
                case false?: return .failure(state.lastFailure ?? RuntimeError(.fail, "The commit failed to reach the disk"))
                case nil:
                    state.waiters.append((transaction, continuation))
                    let start = !state.isFlushing
                    state.isFlushing = true
                    return start ? .success(false) : nil
                }
            }
            switch outcome {
            case .success(true)?: continuation.resume()
            case .failure(let error)?: continuation.resume(throwing: error)
            case .success(false)?: queue.async { self.flushWhileWaited() }
            case nil: break
            }
        }
    }

    /// Blocks until commit `transaction` is durable, flushing on the calling thread if no flush
    /// covers it yet (the synchronous `write {}` of thread-confined handles).
    package func waitUntilDurableBlocking(_ transaction: TransactionID) throws {
        while true {
            switch database.durability(of: transaction) {
            case true?: return
            case false?: throw state.withLock { $0.lastFailure } ?? RuntimeError(.fail, "The commit failed to reach the disk")
            case nil: flushOnce()
            }
        }
    }

    /// Flushes until no writer waits. Runs on `queue`, one at a time (`isFlushing`).
    private func flushWhileWaited() {
        while true {
            flushOnce()
            let more = state.withLock { state in
                if state.waiters.isEmpty { state.isFlushing = false }
                return !state.waiters.isEmpty
            }
            guard more else { return }
        }
    }

    /// One flush, then every waiter it settled is resumed.
    private func flushOnce() {
        let before = database.latestTransaction
        var failure: (any Error)?
        do {
            _ = try database.flush()
        } catch {
            failure = error
        }
        var settled: [(CheckedContinuation<Void, any Error>, (any Error)?)] = []
        state.withLock { state in
            if let failure { state.lastFailure = failure }
            state.waiters.removeAll { waiter in
                switch database.durability(of: waiter.transaction) {
                case true?: settled.append((waiter.continuation, nil))
                case false?: settled.append((waiter.continuation, state.lastFailure ?? failure))
                case nil: return false
                }
                return true
            }
        }
        for (continuation, error) in settled {
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
        let after = database.latestTransaction
        if after > before { onDurable(after) }
    }
}
