import Synchronization
internal import RealmRuntime

extension Realm {
    // MARK: Opening in async code

    /// Opens a realm isolated to the calling actor.
    ///
    /// ```swift
    /// actor Kennel {
    ///     func adopt(_ name: String) async throws {
    ///         let realm = try await Realm.open()
    ///         try await realm.asyncWrite { realm.add(Dog(value: ["name": name])) }
    ///     }
    /// }
    /// ```
    ///
    /// Opening the file, verifying it and migrating its schema run off the caller's executor.
    /// The handle belongs to the calling actor (the compiler keeps it there: `Realm` is not
    /// `Sendable`) and, with ``autorefresh``, advances there after other handles commit.
    ///
    /// To open the realm in an actor's `init`, declare the property with a default value, so the
    /// initializer is already isolated to the actor, and pass the actor:
    ///
    /// ```swift
    /// actor Kennel {
    ///     var realm: Realm!
    ///     init() async throws {
    ///         realm = try await Realm(configuration: .defaultConfiguration, actor: self)
    ///     }
    /// }
    /// ```
    ///
    /// (Before all its stored properties are set, an actor's `init` runs on no actor, and a handle
    /// opened there belongs to none: it advances only at its first `asyncWrite` or `asyncRefresh`
    /// on the actor, which binds it.)
    ///
    /// - Throws: `CancellationError` if the task is cancelled before the handle is ready;
    ///   ``Realm/Error`` as ``init(configuration:)``.
    public static func open(configuration: Configuration = .defaultConfiguration,
                            isolation: isolated (any Actor)? = #isolation) async throws -> Realm {
        let start = ContinuousClock.now
        let file = try await openAndMigrate(configuration)
        try Task.checkCancellation()
        return try Realm(configuration: configuration, file: file, actor: isolation, openingSince: start)
    }

    /// Opens a realm isolated to `actor` (Realm Swift's spelling of ``open(configuration:isolation:)``).
    public convenience init<A: Actor>(configuration: Configuration = .defaultConfiguration, actor: isolated A) async throws {
        let start = ContinuousClock.now
        let file = try await Realm.openAndMigrate(configuration)
        try Task.checkCancellation()
        try self.init(configuration: configuration, file: file, actor: actor, openingSince: start)
    }

    /// Opens the file and runs the schema check and migration on a handle of its own, away from
    /// the caller's executor.
    @concurrent
    nonisolated static func openAndMigrate(_ configuration: Configuration) async throws -> SharedRealmFile {
        try Task.checkCancellation()
        return try Realm(configuration: configuration, file: Realm.openFile(configuration), actor: nil, openingSince: nil).file
    }

    // MARK: Writing in async code

    /// Runs `block` in a write transaction, suspending (never blocking a thread) while waiting
    /// for other writers. Realm Swift's `asyncWrite`.
    ///
    /// ```swift
    /// let dog = try await realm.asyncWrite {
    ///     realm.create(Dog.self, value: ["name": "Rex"])
    /// }
    /// ```
    ///
    /// 1. Waits for the file's write lock (first come, first served). Cancelling the task here
    ///    throws `CancellationError`; the block never runs.
    /// 2. Advances the handle to the newest version and runs `block` synchronously, on the
    ///    caller's isolation. If it throws, everything it did is rolled back and the error
    ///    rethrown.
    /// 3. Seals the commit and releases the lock, so the next writer starts at once, then waits
    ///    until the commit is durable — several waiting commits share one disk sync — and returns
    ///    `block`'s value with the handle showing the new version. When no other sync is under
    ///    way and the disk's last one took under 0.5 ms, this call writes and syncs the commit
    ///    on its own thread rather than suspending (two thread hand-offs cost more than such a
    ///    sync); on the main actor, on a slower disk, or behind another sync, it suspends.
    ///
    /// The transaction belongs to this call: the handle is in a write transaction only while
    /// `block` runs, which is never across a suspension, so other jobs of the actor (another
    /// `asyncWrite`, a read) never see it open. While step 3 waits, the handle still shows the
    /// version before the write.
    ///
    /// - Throws: `CancellationError` (step 1); what `block` throws; commit errors as
    ///   ``commitWrite()``; ``Realm/Error/Code/wrongTransactionState`` inside a write transaction.
    /// - Precondition: the handle belongs to no actor yet (it binds to `isolation`) or to
    ///   `isolation` ("Realm accessed from incorrect actor"; see <doc:Concurrency>).
    @discardableResult
    public func asyncWrite<T>(_ block: () throws -> T, isolation: isolated (any Actor)? = #isolation) async throws -> T {
        guard writer == nil else {
            throw Realm.Error(.wrongTransactionState, "Cannot call asyncWrite() when already in a write transaction")
        }
        bind(to: isolation)
        precondition(!configuration.readOnly, "Can't perform transactions on read-only Realms.")
        asyncWritesWaiting += 1
        let write: WritePipeline.OpenWrite
        do {
            write = try await file.writes.begin()
        } catch {
            asyncWritesWaiting -= 1
            throw Realm.Error.from(error, configuration: configuration)
        }
        asyncWritesWaiting -= 1
        try didBeginWrite(write)
        let result: T
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        guard isInWriteTransaction else { return result }  // the block committed or cancelled
        let transaction = try prepareCommit()
        let writes = file.writes
        do {
            try await writes.waitUntilDurable(transaction)
        } catch {
            try finishCommit(transaction) { throw error }
        }
        try finishCommit(transaction) {}
        return result
    }

    /// Advances the handle to the newest version, first waiting for commits other handles have
    /// made but not yet synced. Returns whether the handle moved; false if the task was
    /// cancelled.
    ///
    /// - Precondition: as ``asyncWrite(_:isolation:)``'s, the handle belongs to no actor yet or
    ///   to `isolation`.
    @discardableResult
    public func asyncRefresh(isolation: isolated (any Actor)? = #isolation) async -> Bool {
        guard !Task.isCancelled else { return false }
        bind(to: isolation)
        let newest = file.database.preparedTransaction
        try? await file.writes.waitUntilDurable(newest)
        guard !Task.isCancelled else { return false }
        return refresh()
    }
}

/// Refreshes an actor-isolated handle on its actor after other handles commit.
///
/// `@unchecked Sendable`: `realm` is only dereferenced inside ``refresh(on:)``, which runs
/// isolated to `actor`, the actor the handle belongs to; it is a weak reference, so the observer
/// never keeps a handle alive. `isScheduled` coalesces the refreshes of a burst of commits.
final class AutorefreshObserver: VersionObserver, @unchecked Sendable {
    private weak var realm: Realm?
    private let actor: any Actor
    private let isScheduled = Atomic<Bool>(false)

    init(realm: Realm, actor: any Actor) {
        self.realm = realm
        self.actor = actor
    }

    func versionDidBecomeDurable(_ version: TransactionID) {
        guard !isScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Task { await self.refresh(on: self.actor) }
    }

    private func refresh(on actor: isolated any Actor) {
        isScheduled.store(false, ordering: .releasing)
        guard let realm, realm.autorefresh else { return }
        realm.refresh()
    }
}
