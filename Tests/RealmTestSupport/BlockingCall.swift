import Foundation
import Synchronization

/// A blocking call (an open, a close, a wait for another process) run on a thread of its own —
/// never a task's — or an asynchronous one in a task of its own, that a test can race against a
/// deadline without waiting for it.
///
/// Racing with a task group does not work for this: a group waits for all its children before it
/// returns, and a child awaiting a blocked call cannot be cancelled, so a call that blocks until
/// the test acts (the bug under test) would deadlock the test instead of failing it.
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

    /// Starts `body` on a thread of its own (not a pool's: a busy test run can hold every
    /// thread of a pool, and the call would not even start before the deadline).
    package init(_ body: @escaping @Sendable () -> Value) {
        Thread.detachNewThread { self.finish(body()) }
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
