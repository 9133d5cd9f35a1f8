import Synchronization

/// The error of ``withAbandoningDeadline(_:_:)`` when the operation did not finish in time.
struct DeadlineExceeded: Error, CustomStringConvertible {
    let timeout: Duration
    var description: String { "the PostgreSQL transaction did not finish within \(timeout); abandoned" }
}

/// Runs `operation` in a task of its own and returns its result — or, if `timeout` passes or
/// the caller is cancelled first, cancels it and throws (`DeadlineExceeded`, `CancellationError`)
/// without waiting for it to end.
///
/// Why abandon rather than await: postgres-nio (1.33) can leave a query waiting forever when
/// the server drops the connection mid-query (a PostgreSQL crash or restart), and cancelling the
/// waiting task does not end the wait. A structured child (a task group) would make the sink
/// wait with it, stuck for good and deaf to shutdown. An abandoned transaction is harmless to
/// correctness: if it is in fact alive and commits later, the retry's `SELECT … FOR UPDATE` of
/// the progress row waits for it and then skips what it applied; if it is dead, PostgreSQL has
/// rolled it back. What it costs is the task and its connection lease, until the client closes.
///
/// The continuation is resumed exactly once: by whichever of the operation, the timer and
/// the cancellation handler takes it first out of the mutex.
func withAbandoningDeadline<T: Sendable>(_ timeout: Duration,
                                         _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    let race = DeadlineRace<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            race.pending.withLock { $0 = continuation }
            let work = Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                race.pending.withLock { $0.take() }?.resume(with: result)
                race.tasks.withLock { $0.timer }?.cancel()
            }
            let timer = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }  // cancelled: the work ended
                guard let continuation = race.pending.withLock({ $0.take() }) else { return }
                work.cancel()
                continuation.resume(throwing: DeadlineExceeded(timeout: timeout))
            }
            race.tasks.withLock { $0 = (work, timer) }
            // Cancelled before the tasks were stored: the handler found nothing to cancel.
            if Task.isCancelled, let continuation = race.pending.withLock({ $0.take() }) {
                work.cancel()
                timer.cancel()
                continuation.resume(throwing: CancellationError())
            }
        }
    } onCancel: {
        guard let continuation = race.pending.withLock({ $0.take() }) else { return }
        let (work, timer) = race.tasks.withLock { $0 }
        work?.cancel()
        timer?.cancel()
        continuation.resume(throwing: CancellationError())
    }
}

/// The state ``withAbandoningDeadline(_:_:)``'s operation, timer and cancellation handler share,
/// each behind its mutex: the continuation (taken by whoever resumes it) and the two tasks.
private final class DeadlineRace<T: Sendable>: Sendable {
    let pending = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let tasks = Mutex<(work: Task<Void, Never>?, timer: Task<Void, Never>?)>((nil, nil))
}
