import Dispatch

/// The single-writer lock of one realm file: a FIFO of waiters, async (cancellable, suspending
/// the task, never a thread) or blocking (for the synchronous `write {}` of thread-confined
/// handles), served strictly in arrival order.
///
/// Ownership passes directly from the holder to the first waiter on `unlock()`, so a waiter
/// never races with a newcomer, and the lock may be released by another thread than the one
/// that took it (a write transaction's task can hop threads between its awaits).
package final class WriteLock: Sendable {
    private enum Waiter {
        case task(CheckedContinuation<Void, any Error>)
        case thread(DispatchSemaphore)
    }

    private struct State {
        var isHeld = false
        /// Waiters in arrival order, by ticket.
        var waiters: [(ticket: UInt64, waiter: Waiter)] = []
        var nextTicket: UInt64 = 0
        /// Tickets whose task was cancelled before it could register as a waiter.
        var cancelledEarly: Set<UInt64> = []
    }

    /// Guarded by its own lock; a waiter is resumed (or signalled) after the lock is released.
    private let state = Lock(State())

    package init() {}

    /// Waits (suspending) until the caller holds the lock.
    ///
    /// - Throws: `CancellationError` if the task is cancelled before the lock is acquired; the
    ///   caller then does not hold it.
    package func lock(isolation: isolated (any Actor)? = #isolation) async throws {
        try Task.checkCancellation()
        // Free and nobody waiting: taken without suspending (a continuation resumed at once
        // still re-enqueues the task on its executor).
        let ticket: UInt64? = state.withLock { state in
            if !state.isHeld && state.waiters.isEmpty {
                state.isHeld = true
                return nil
            }
            defer { state.nextTicket += 1 }
            return state.nextTicket
        }
        guard let ticket else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Bool, CancellationError> = state.withLock { state in
                    if state.cancelledEarly.remove(ticket) != nil { return .failure(CancellationError()) }
                    if !state.isHeld && state.waiters.isEmpty {
                        state.isHeld = true
                        return .success(true)
                    }
                    state.waiters.append((ticket, .task(continuation)))
                    return .success(false)
                }
                switch outcome {
                case .success(true): continuation.resume()
                case .success(false): break
                case .failure(let error): continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.ticket == ticket }) {
                    return state.waiters.remove(at: index).waiter
                }
                // Not registered yet: registration will see the ticket and fail. (If the lock was
                // already granted, the ticket is never looked at again.)
                state.cancelledEarly.insert(ticket)
                return nil
            }
            if case .task(let continuation) = waiter { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Blocks the calling thread until it holds the lock. For synchronous APIs only: a blocked
    /// cooperative thread cannot run other tasks.
    package func lockBlocking() {
        let semaphore: DispatchSemaphore? = state.withLock { state in
            if !state.isHeld && state.waiters.isEmpty {
                state.isHeld = true
                return nil
            }
            let semaphore = DispatchSemaphore(value: 0)
            state.waiters.append((state.nextTicket, .thread(semaphore)))
            state.nextTicket += 1
            return semaphore
        }
        semaphore?.wait()
    }

    /// Releases the lock, handing it to the first waiter if there is one.
    package func unlock() {
        let next: Waiter? = state.withLock { state in
            precondition(state.isHeld, "The write lock is not held")
            guard !state.waiters.isEmpty else {
                state.isHeld = false
                return nil
            }
            return state.waiters.removeFirst().waiter  // stays held: ownership passes on
        }
        switch next {
        case .task(let continuation): continuation.resume()
        case .thread(let semaphore): semaphore.signal()
        case nil: break
        }
    }

    /// Whether someone holds the lock (for tests and diagnostics).
    package var isLocked: Bool { state.withLock { $0.isHeld } }

    /// How many wait for it (for tests and diagnostics).
    package var waiterCount: Int { state.withLock { $0.waiters.count } }
}
