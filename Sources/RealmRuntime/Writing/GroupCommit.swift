import Dispatch

/// Makes prepared commits durable, several per disk sync (group commit), and tells each writer
/// when its own commit is.
///
/// A writer prepares its transaction (``WriteTransaction/prepare()``) under the write lock,
/// releases the lock — so the next writer builds on it at once — and then waits here. One flush
/// at a time writes and syncs every commit prepared so far. Writers that prepared while it ran
/// are covered by the next flush, which starts as soon as it ends; so under load each sync covers
/// everything that queued during the previous one.
///
/// ## Where a flush runs
///
/// A sync blocks its thread for a disk round trip. A writer that finds no flush running and the
/// disk fast (the last flush took at most `inlineFlushLimit`) flushes *on its own thread*, then
/// returns: it was about to suspend with nothing else to run, and handing the flush to another
/// thread and the resumption back costs two thread wake-ups — 25–60 µs on this project's
/// Linux VMs, a quarter of a one-object commit (W7). Only one flush runs at a time, so at most
/// one cooperative thread is ever blocked here, for at most about that limit; it flushes once,
/// and writers that queued meanwhile are flushed on the dedicated queue. Everything else — a
/// slow disk (`F_FULLFSYNC` takes milliseconds), a flush already running, no measurement yet,
/// the main actor (whose thread draws a UI) — waits suspended while `queue` flushes.
///
/// Each waiter resumes when its commit is durable, or throws if the flush covering it failed
/// (every commit of a failed batch fails; after a failed sync, every later one too).
package final class GroupCommit: Sendable {
    private struct State {
        /// Writers waiting for their commit, oldest first.
        var waiters: [(transaction: TransactionID, continuation: CheckedContinuation<Void, any Error>)] = []
        /// A flush is running (inline on a writer's thread, or on `queue`); only its runner
        /// clears it, once no waiter is left (or after handing the waiters to `queue`).
        var isFlushing = false
        /// The error of the last failed flush, for commits it discarded.
        var lastFailure: (any Error)?
        /// How long the last flush took (writes and sync), nil before the first: whether the
        /// next may run inline.
        var lastFlush: Duration?

        /// The error for a commit that `database` reports will never be durable: the error of
        /// the flush that settled it, else the database's reason (a flush that succeeded but
        /// stopped the writes behind its batch), else the last failed flush's.
        func discardError(_ database: Database, flushError: (any Error)?) -> any Error {
            flushError ?? database.discardError ?? lastFailure ?? RuntimeError(.fail, "The commit failed to reach the disk")
        }
    }

    /// The longest a flush may have taken for the next one to run on a writer's own thread:
    /// 500 µs by default, a few times what a one-page `fdatasync` costs on Linux servers and a
    /// tenth of an `F_FULLFSYNC` on Apple's (tests vary it).
    private let inlineFlushLimit: Duration
    private let database: Database
    private let queue: DispatchQueue
    /// Guarded by its own lock; continuations are resumed and `onDurable` called outside it.
    private let state = Lock(State())
    /// Called after each flush that made a new version durable, with that version, before the
    /// writers it settled resume.
    private let onDurable: @Sendable (TransactionID) -> Void
    /// Told after each flush: how many commits it made durable, how long it took, its failure.
    private let monitor: FileMonitor?

    package init(database: Database, label: String, inlineFlushLimit: Duration = .microseconds(500), monitor: FileMonitor? = nil,
                 onDurable: @escaping @Sendable (TransactionID) -> Void) {
        self.database = database
        self.inlineFlushLimit = inlineFlushLimit
        queue = DispatchQueue(label: "RealmActors.commit.\(label)")
        self.monitor = monitor
        self.onDurable = onDurable
    }

    /// Suspends until commit `transaction` is durable — or, when no flush is running and the
    /// disk is fast, flushes it on the caller's thread (see "Where a flush runs").
    ///
    /// Not cancellable: the commit is already on its way to the disk, and the caller must learn
    /// whether it got there.
    package func waitUntilDurable(_ transaction: TransactionID, isolation: isolated (any Actor)? = #isolation) async throws {
        let mayFlushHere = isolation.map { $0 !== MainActor.shared } ?? true
        let flushHere = state.withLock { state -> Bool in
            guard mayFlushHere, !state.isFlushing, let last = state.lastFlush, last <= inlineFlushLimit,
                  database.durability(of: transaction) == nil else { return false }
            state.isFlushing = true
            return true
        }
        if flushHere {
            flushOnce()
            if flushingGoesOn() { queue.async { self.flushWhileWaited() } }
            // The flush covered this commit (it was prepared before), unless a blocking writer's
            // flush did; either way its outcome is known now.
            switch database.durability(of: transaction) {
            case true?: return
            case false?: throw discardError(flushError: nil)
            case nil: break  // not reached; wait as any writer would
            }
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let outcome: Result<Bool, any Error>? = state.withLock { state in
                switch database.durability(of: transaction) {
                case true?: return .success(true)
                case false?: return .failure(state.discardError(database, flushError: nil))
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

    /// Writers suspended until their commit is durable (for tests).
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Blocks until commit `transaction` is durable, flushing on the calling thread if no flush
    /// covers it yet (the synchronous `write {}` of thread-confined handles).
    package func waitUntilDurableBlocking(_ transaction: TransactionID) throws {
        while true {
            switch database.durability(of: transaction) {
            case true?: return
            case false?: throw discardError(flushError: nil)
            case nil: flushOnce()
            }
        }
    }

    /// Flushes until no writer waits. Runs on `queue`, one at a time (`isFlushing`).
    private func flushWhileWaited() {
        while true {
            flushOnce()
            guard flushingGoesOn() else { return }
        }
    }

    /// After a flush by the holder of `isFlushing`: whether writers still wait, so another flush
    /// must follow; if none does, `isFlushing` is cleared (under the same lock, so a writer that
    /// registers next starts a flush itself).
    private func flushingGoesOn() -> Bool {
        state.withLock { state in
            if state.waiters.isEmpty { state.isFlushing = false }
            return !state.waiters.isEmpty
        }
    }

    /// The error for a commit that will never be durable (see ``State/discardError(_:flushError:)``).
    private func discardError(flushError: (any Error)?) -> any Error {
        state.withLock { $0.discardError(database, flushError: flushError) }
    }

    /// One flush, then every waiter it settled is resumed.
    private func flushOnce() {
        let before = database.latestTransaction
        var failure: (any Error)?
        var commits = 0
        let start = ContinuousClock.now
        do {
            commits = try database.flushBatch().commits
        } catch {
            failure = error
        }
        let took = ContinuousClock.now - start
        let after = database.latestTransaction
        var settled: [(CheckedContinuation<Void, any Error>, (any Error)?)] = []
        state.withLock { state in
            if after > before { state.lastFlush = took }  // a flush that wrote nothing says nothing of the disk
            if let failure { state.lastFailure = failure }
            let discarded = state.discardError(database, flushError: failure)
            state.waiters.removeAll { waiter in
                switch database.durability(of: waiter.transaction) {
                case true?: settled.append((waiter.continuation, nil))
                // Never resumed without an error: a flush that succeeded can still discard the
                // commits queued behind its batch (when it stopped writes after the batch was
                // durable), and its own outcome is then no error at all.
                case false?: settled.append((waiter.continuation, discarded))
                case nil: return false
                }
                return true
            }
        }
        // The feed first: a writer that resumes finds its version already announced.
        if after > before {
            monitor?.versionBecameDurable(after)
            onDurable(after)
        }
        if commits > 0 || failure != nil { monitor?.didFlush(commits: commits, duration: took, failure: failure) }
        for (continuation, error) in settled {
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }
}
