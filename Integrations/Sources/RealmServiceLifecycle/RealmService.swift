public import Logging
public import RealmActors
public import ServiceLifecycle
import Synchronization

/// A swift-service-lifecycle `Service` that owns the realm files of a process: it opens each
/// (creating, checking and migrating it) when the service group starts, keeps it open while the
/// process serves, and at graceful shutdown (SIGTERM, with the group's signals) lets the writes
/// in flight finish and become durable before it returns.
///
/// ```swift
/// let realms = RealmService(configurations: [ordersConfiguration], logger: logger)
/// let group = ServiceGroup(services: [realms, httpServer], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// Your actors open their own handles (`Realm.open(configuration:)`) on the files this service
/// keeps open, so opening one is cheap and the file is verified once, at startup. Change streams
/// end when their task is cancelled: run their loops in tasks the group cancels, or end them at
/// shutdown with ServiceLifecycle's `cancelOnGracefulShutdown()`:
///
/// ```swift
/// for await change in realm.objects(Order.self).changes.cancelOnGracefulShutdown() { … }
/// ```
///
/// Lifecycle (``run()``):
/// 1. opens every configuration's realm, in order (a failure ends `run` with the error, which
///    stops the group);
/// 2. reports ready (``waitUntilReady()`` returns) and waits for graceful shutdown;
/// 3. drains: for each realm, waits for the write lock behind every writer already queued
///    (first come, first served) and for the newest commit to be durable;
/// 4. releases its handles and returns. A file closes when the last handle of the process goes.
///
/// Cancellation (the group's second signal, or its cancellation timeout) skips step 3.
public final class RealmService: Service, Sendable {
    private let configurations: [Realm.Configuration]
    private let logger: Logger
    /// Set once step 1 is done; guarded by its lock.
    private let ready = Mutex<(isReady: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    /// A service owning the realms of `configurations`.
    public init(configurations: [Realm.Configuration], logger: Logger) {
        self.configurations = configurations
        self.logger = logger
    }

    /// Runs the lifecycle above.
    public func run() async throws {
        var realms: [Realm] = []
        for configuration in configurations {
            realms.append(try await Realm.open(configuration: configuration))
            logger.info("realm open", metadata: ["realm.file": "\(configuration.fileURL?.path ?? "in memory")"])
        }
        let waiters = ready.withLock { state in
            state.isReady = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        do {
            try await gracefulShutdown()
        } catch is CancellationError {
            logger.info("realm service cancelled: writes in flight were not awaited")
            return
        }
        for realm in realms {
            // The write lock is first come, first served: once this write begins, every writer
            // queued before shutdown has prepared its commit; the refresh then waits until the
            // newest commit is durable.
            try await realm.asyncWrite { realm.cancelWrite() }
            await realm.asyncRefresh()
        }
        logger.info("realm service stopped: writes in flight are durable")
    }

    /// Returns once every realm is open (at once if they are already).
    public func waitUntilReady() async {
        await withCheckedContinuation { continuation in
            let isReady = ready.withLock { state in
                if !state.isReady { state.waiters.append(continuation) }
                return state.isReady
            }
            if isReady { continuation.resume() }
        }
    }
}
