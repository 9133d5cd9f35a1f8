import Synchronization

/// Wakes a waiting task when a new version of a file is durable: what a replication consumer
/// waits on between commits.
///
/// Ownership: the consumer (a `Commits` iterator) owns the signal, and the signal owns the file.
/// The file's ``VersionObservers`` hold only the signal's ``Announcements`` — which hold nothing
/// back — and the signal removes them when it goes: were the file's observers to hold the signal,
/// the file would hold itself, and never close while the process runs (a realm restored from a
/// backup under the same path would then not be read again).
package final class NewVersionSignal: Sendable {
    /// What the file's observers call: the newest version announced, and the one waiting
    /// continuation, both in one `Lock`. Cancelling the waiting task resumes it (with false).
    private final class Announcements: VersionObserver {
        struct State {
            var newest: TransactionID = 0
            var waiter: (after: TransactionID, continuation: CheckedContinuation<Bool, Never>)?
            var isCancelled = false
        }

        let state = Lock(State())

        func versionDidBecomeDurable(_ version: TransactionID) {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                state.newest = max(state.newest, version)
                guard let waiter = state.waiter, version > waiter.after else { return nil }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: true)
        }
    }

    private let announcements = Announcements()
    private let file: SharedRealmFile
    private let token: UInt64

    package init(file: SharedRealmFile) {
        self.file = file
        token = file.versionObservers.add(announcements)
    }

    deinit {
        file.versionObservers.remove(token)
    }

    /// Returns true once a version newer than `version` is durable (at once if one is), false
    /// if the task is cancelled first. One waiter at a time.
    package func wait(after version: TransactionID) async -> Bool {
        let announcements = announcements
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resume = announcements.state.withLock { state -> Bool? in
                    if state.isCancelled { return false }
                    if state.newest > version || file.database.latestTransaction > version { return true }
                    state.waiter = (version, continuation)
                    return nil
                }
                if let resume { continuation.resume(returning: resume) }
            }
        } onCancel: {
            let waiter = announcements.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                state.isCancelled = true
                defer { state.waiter = nil }
                return state.waiter?.continuation
            }
            waiter?.resume(returning: false)
        }
    }
}
