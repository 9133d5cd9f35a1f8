import Synchronization
import Testing
@testable import RealmPostgres

/// `withAbandoningDeadline`: the operation's result when it finishes in time; otherwise the
/// caller goes on — at the deadline, or at cancellation — while the operation is still waiting
/// (as a postgres-nio query on a dropped connection can, deaf to cancellation).
@Suite(.timeLimit(.minutes(1))) struct AbandoningDeadlineTests {
    /// An operation that waits, ignoring cancellation, until the test lets it go.
    final class Stuck: Sendable {
        let waiting = Mutex<UnsafeContinuation<Void, Never>?>(nil)
        let entered = AsyncStream<Void>.makeStream()
        func wait() async {
            await withUnsafeContinuation { continuation in
                waiting.withLock { $0 = continuation }
                entered.continuation.yield()
            }
        }
        func release() async {
            var iterator = entered.stream.makeAsyncIterator()
            _ = await iterator.next()  // it is waiting
            waiting.withLock { $0.take() }?.resume()
        }
    }

    @Test func anOperationThatFinishesGivesItsResult() async throws {
        #expect(try await withAbandoningDeadline(.seconds(30)) { 42 } == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await withAbandoningDeadline(.seconds(30)) { throw Refused() } }
    }

    @Test func aStuckOperationIsAbandonedAtTheDeadline() async throws {
        let stuck = Stuck()
        await #expect(throws: DeadlineExceeded.self) {
            try await withAbandoningDeadline(.milliseconds(50)) { await stuck.wait() }
        }
        await stuck.release()
    }

    @Test func aStuckOperationIsAbandonedWhenTheCallerIsCancelled() async throws {
        let stuck = Stuck()
        let caller = Task { try await withAbandoningDeadline(.seconds(600)) { await stuck.wait() } }
        var iterator = stuck.entered.stream.makeAsyncIterator()
        _ = await iterator.next()  // the operation is waiting
        caller.cancel()
        await #expect(throws: CancellationError.self) { try await caller.value }
        stuck.waiting.withLock { $0.take() }?.resume()
    }
}
