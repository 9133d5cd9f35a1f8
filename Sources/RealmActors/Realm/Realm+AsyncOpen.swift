public import Dispatch
internal import RealmRuntime

extension Realm {
    /// Opens a realm in the background and delivers the handle on `callbackQueue`: Realm Swift's
    /// callback form of opening, for code not written with `async`/`await`.
    ///
    /// ```swift
    /// Realm.asyncOpen(configuration: configuration) { result in
    ///     switch result {
    ///     case .success(let realm): show(realm.objects(Dog.self))
    ///     case .failure(let error): print("could not open: \(error)")
    ///     }
    /// }
    /// ```
    ///
    /// Opening the file, verifying it, migrating and compacting run off the caller and off the
    /// queue; the handle is then made on `callbackQueue`, in the callback's call, and belongs to
    /// no actor: use it on that queue (with the main queue, on the main thread). In async code,
    /// ``open(configuration:isolation:)`` gives a handle isolated to the calling actor instead.
    ///
    /// - Returns: a task whose ``AsyncOpenTask/cancel()`` stops the callback from being called.
    @discardableResult
    public static func asyncOpen(configuration: Configuration = .defaultConfiguration,
                                 callbackQueue: DispatchQueue = .main,
                                 callback: @escaping @Sendable (Result<Realm, any Swift.Error>) -> Void) -> AsyncOpenTask {
        let task = AsyncOpenTask()
        task.start {
            let opened: Result<SharedRealmFile, any Swift.Error>
            do {
                opened = .success(try await openAndMigrate(configuration))
            } catch {
                opened = .failure(error)
            }
            callbackQueue.async {
                guard !task.isCancelled else { return }
                callback(opened.flatMap { file in Result { try Realm(configuration: configuration, file: file, actor: nil) } })
            }
        }
        return task
    }

    /// The task of an ``asyncOpen(configuration:callbackQueue:callback:)``: Realm Swift's
    /// `AsyncOpenTask`.
    public final class AsyncOpenTask: Sendable {
        /// Whether ``cancel()`` was called. Guarded by its mutex (read on the callback queue).
        private let cancelled = Lock(false)
        /// The opening work, cancelled with the task. Guarded by its mutex.
        private let work = Lock<Task<Void, Never>?>(nil)

        init() {}

        /// Runs `body` as the opening work.
        func start(_ body: @escaping @Sendable () async -> Void) {
            work.withLock { $0 = Task.detached(operation: body) }
        }

        /// Whether the open was cancelled.
        var isCancelled: Bool { cancelled.withLock { $0 } }

        /// Cancels the open: the callback is not called (unless it is already running). A file
        /// being opened or migrated is left consistent: the work in progress finishes or rolls
        /// back as it would after a crash.
        public func cancel() {
            cancelled.withLock { $0 = true }
            work.withLock { $0?.cancel() }
        }
    }
}
