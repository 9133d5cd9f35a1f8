import Foundation
import Synchronization

/// A blocking call (an open, a close, a wait for another process, a whole crash test killing and
/// reaping child processes) run on a thread of its own — never one of the cooperative pool's — or
/// an asynchronous one in a task of its own.
///
/// Two uses:
/// - ``offThePool(_:)``: a long synchronous test body, awaited. The pool has one thread per core
///   (two on CI); a test that blocks one for minutes (in `waitpid`, in `read` from a child, in a
///   loop of commits under ASan) starves every other test, and tests with a time limit fail
///   waiting for a thread (CI, 2026-11-28: two crash tests held both for ~10 minutes under ASan).
/// - `BlockingCall { … }`, then ``returns(within:)``: a call a test races against a deadline
///   without waiting for it. Racing with a task group does not work for this: a group waits for
///   all its children before it returns, and a child awaiting a blocked call cannot be cancelled,
///   so a call that blocks until the test acts (the bug under test) would deadlock the test
///   instead of failing it.
///
/// Both run their body in a task on a ``CallThread``, so the task-local values Swift Testing finds
/// the running test by (`Test.current`, its configuration) are there: an `#expect` or
/// `Issue.record` in the body fails the test that runs it. (Called on a thread outside any task,
/// Swift Testing would post the issue to every running configuration with no test attached.)
package final class BlockingCall<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiters: [CheckedContinuation<Value, Never>] = []
        /// Told when the call returns, on the thread that ran it: a deadline race must not
        /// depend on a task of the cooperative pool being scheduled, which tests blocking the
        /// pool's few threads (one per core) can delay past any deadline.
        var onReturn: [@Sendable () -> Void] = []
    }
    private let state = Mutex(State())

    /// Runs `body` — synchronous, long, blocking — on a thread of its own in the calling task,
    /// and returns what it returns. The calling task's task-local values stay (the running test
    /// among them), so expectations in `body` are the test's; the pool's thread is free meanwhile.
    package static func offThePool(_ body: () throws -> Value) async throws -> Value {
        let thread = CallThread()
        defer { thread.finish() }
        // A task prefers its executor preference for whatever is not isolated to an actor: the
        // closure is nonisolated (this function is), so all of `body` runs on the thread.
        return try await withTaskExecutorPreference(thread) { try body() }
    }

    /// Starts `body` on a thread of its own (not a pool's: a busy test run can hold every
    /// thread of a pool, and the call would not even start before the deadline), in a task that
    /// inherits the caller's task-local values.
    package init(_ body: @escaping @Sendable () -> Value) {
        let thread = CallThread()
        Task(executorPreference: thread) {
            self.finish(body())
            thread.finish()
        }
    }

    /// Starts `body` in a task of its own: an asynchronous call that may wait for good (on a
    /// continuation nothing cancels) is raced the same way.
    package init(async body: @escaping @Sendable () async -> Value) {
        Task.detached { self.finish(await body()) }
    }

    private func finish(_ value: Value) {
        let (waiters, onReturn) = state.withLock { state in
            state.value = value
            defer { state.waiters = []; state.onReturn = [] }
            return (state.waiters, state.onReturn)
        }
        for action in onReturn { action() }
        for waiter in waiters { waiter.resume(returning: value) }
    }

    /// The call's result, once it returns.
    package func value() async -> Value {
        await withCheckedContinuation { continuation in
            let value = state.withLock { state -> Value? in
                if let value = state.value { return value }
                state.waiters.append(continuation)
                return nil
            }
            if let value { continuation.resume(returning: value) }
        }
    }

    /// Whether the call returns within `seconds`. Returns at the deadline at the latest; the
    /// call goes on (await ``value()`` once the test has let it finish).
    package func returns(within seconds: Double) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = Mutex<CheckedContinuation<Bool, Never>?>(continuation)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                once.withLock { $0?.resume(returning: false); $0 = nil }
            }
            let returned: @Sendable () -> Void = { once.withLock { $0?.resume(returning: true); $0 = nil } }
            let done = state.withLock { state -> Bool in
                if state.value != nil { return true }
                state.onReturn.append(returned)
                return false
            }
            if done { returned() }
        }
    }
}

/// One thread, started for one call, running the jobs of the task that prefers it as its
/// executor (`withTaskExecutorPreference`, `Task(executorPreference:)`): the call's synchronous
/// code blocks this thread only. It ends once told the call has finished and no job is left.
///
/// The jobs wait under an `NSCondition` (a pthread mutex and condition variable, which
/// ThreadSanitizer understands, so what one job writes and the next reads is ordered for it too).
package final class CallThread: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` and `finished` are read and written only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var finished = false

    package init() {
        Thread.detachNewThread { self.runJobs() }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.withLock {
            jobs.append(job)
            condition.signal()
        }
    }

    /// The call has finished: the thread runs what is left and ends.
    package func finish() {
        condition.withLock {
            finished = true
            condition.signal()
        }
    }

    private func runJobs() {
        while true {
            let next = condition.withLock { () -> UnownedJob? in
                while jobs.isEmpty && !finished { condition.wait() }
                return jobs.isEmpty ? nil : jobs.removeFirst()
            }
            guard let next else { return }
            next.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
