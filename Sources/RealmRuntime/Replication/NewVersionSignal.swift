import Synchronization

/// Wakes a waiting task when a new version of a file is durable: what a replication consumer
/// waits on between commits. Registered with the file's ``VersionObservers`` for its life.
///
/// State: the newest version announced, and the one waiting continuation, both in one `Lock`.
/// Cancelling the waiting task resumes it (with false).
package final class NewVersionSignal: VersionObserver {
    private struct State {
        var newest: TransactionID = 0
        var waiter: (after: TransactionID, continuation: CheckedContinuation<Bool, Never>)?
        var isCancelled = false
    }

    private let state = Lock(State())
    private let file: SharedRealmFile
    /// The registration token, known only once `self` is registered in `init` (after every
    /// stored property has a value): hence an atomic set once there, not a `let`.
    private let token = Atomic<UInt64>(0)

    package init(file: SharedRealmFile) {
        self.file = file
        token.store(file.versionObservers.add(self), ordering: .relaxed)
    }

    deinit {
        file.versionObservers.remove(token.load(ordering: .relaxed))
    }

    package func versionDidBecomeDurable(_ version: TransactionID) {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.newest = max(state.newest, version)
            guard let waiter = state.waiter, version > waiter.after else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: true)
    }

    /// Returns true once a version newer than `version` is durable (at once if one is), false
    /// if the task is cancelled first. One waiter at a time.
    package func wait(after version: TransactionID) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resume = state.withLock { state -> Bool? in
                    if state.isCancelled { return false }
                    if state.newest > version || file.database.latestTransaction > version { return true }
                    state.waiter = (version, continuation)
                    return nil
                }
                if let resume { continuation.resume(returning: resume) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                state.isCancelled = true
                defer { state.waiter = nil }
                return state.waiter?.continuation
            }
            waiter?.resume(returning: false)
        }
    }
}
