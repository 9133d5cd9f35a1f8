import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class Counter: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
}

/// An actor owning a realm, as a service would.
actor CounterService {
    let configuration: Realm.Configuration
    var realm: Realm?
    var label = "service"
    private(set) var sawOpenTransaction = false

    init(configuration: Realm.Configuration) {
        self.configuration = configuration
    }

    func open() async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    /// Increments counter `id` by one in its own transaction (read-modify-write).
    func increment(_ id: Int) async throws {
        guard let realm else { return }
        try await realm.asyncWrite {
            let counter = realm.object(ofType: Counter.self, forPrimaryKey: id) ?? realm.create(Counter.self, value: ["id": id])
            counter.value += 1
            label = "wrote \(id)"  // the block runs on the actor: its state is at hand
        }
    }

    /// Called between the actor's other jobs: a write transaction must never be seen open.
    func probe() {
        if realm?.isInWriteTransaction == true { sawOpenTransaction = true }
    }

    func value(_ id: Int) -> Int? {
        realm?.object(ofType: Counter.self, forPrimaryKey: id)?.value
    }

    func count() -> Int { realm?.objects(Counter.self).count ?? 0 }
}

@Suite struct AsyncWriteTests {
    @Test func concurrentIncrementsFromEightActorsAreAllKept() async throws {
        let directory = try TemporaryDirectory()
        let configuration = fileConfiguration(directory)
        let services = (0..<8).map { _ in CounterService(configuration: configuration) }
        for service in services { try await service.open() }
        let perActor = 50
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in services {
                group.addTask {
                    for _ in 0..<perActor { try await service.increment(1) }
                }
                group.addTask {
                    for _ in 0..<perActor { await service.probe() }
                }
            }
            try await group.waitForAll()
        }
        for service in services { #expect(await !service.sawOpenTransaction) }
        let realm = try Realm(configuration: configuration)
        #expect(realm.object(ofType: Counter.self, forPrimaryKey: 1)?.value == 8 * perActor, "no lost update")
        // Each writer's handle showed its own commit when asyncWrite returned.
        #expect(await services[0].value(1) ?? 0 >= perActor)
    }
}

extension AsyncWriteTests {
    @Test func aThrowingBlockRollsBackAndRethrows() async throws {
        struct Stop: Error {}
        let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        await #expect(throws: Stop.self) {
            try await realm.asyncWrite {
                realm.add(Counter(value: ["id": 1]))
                throw Stop()
            }
        }
        #expect(realm.isEmpty && !realm.isInWriteTransaction)
        let value = try await realm.asyncWrite { realm.create(Counter.self, value: ["id": 2, "value": 7]).value }
        #expect(value == 7 && realm.objects(Counter.self).count == 1)
        // Nested: asyncWrite inside a write transaction is an error, not a deadlock.
        realm.beginWrite()
        await #expect(throws: Realm.Error.self) { try await realm.asyncWrite {} }
        realm.cancelWrite()
    }

    @Test func aWriteCancelledWhileWaitingForTheLockNeverRuns() async throws {
        let directory = try TemporaryDirectory()
        let configuration = fileConfiguration(directory)
        let holder = try Realm(configuration: configuration)
        holder.beginWrite()  // holds the file's write lock
        let ran = Recorder()
        let (opened, openedContinuation) = AsyncStream<Void>.makeStream()
        let waiting = Task {
            let realm = try await Realm.open(configuration: configuration)
            openedContinuation.yield()
            try await realm.asyncWrite { ran.mark(); realm.add(Counter(value: ["id": 1])) }
        }
        for await _ in opened { break }  // the task is at (or in) asyncWrite: the lock is taken
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        holder.cancelWrite()
        #expect(!ran.marked)
        #expect(try Realm(configuration: configuration).isEmpty)
    }

    @Test func asyncRefreshAndAutorefreshBringOtherHandlesCommits() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        let reader = CounterService(configuration: configuration)
        try await reader.open()
        let writer = try Realm(configuration: configuration)
        try writer.write { writer.add(Counter(value: ["id": 1])) }
        // The actor's handle advances by itself, on its actor.
        while await reader.count() == 0 { await Task.yield() }
        // A thread-confined handle does not; asyncRefresh moves it.
        let other = try Realm(configuration: configuration)
        try writer.write { writer.add(Counter(value: ["id": 2])) }
        #expect(other.objects(Counter.self).count == 1)
        #expect(await other.asyncRefresh())
        #expect(other.objects(Counter.self).count == 2)
        #expect(await !other.asyncRefresh(), "nothing newer")
    }

    @Test @MainActor func realmOpenedForAnActorByInitializer() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        let realm = try await Realm(configuration: configuration, actor: MainActor.shared)
        try await realm.asyncWrite { realm.add(Counter(value: ["id": 1])) }
        #expect(realm.objects(Counter.self).count == 1)
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            _ = try await Realm.open(configuration: configuration)
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }
}

/// Whether something happened, settable from a non-escaping block.
final class Recorder: @unchecked Sendable {
    // @unchecked: tests set it on one task and read it after joining that task.
    private(set) var marked = false
    func mark() { marked = true }
}

extension AsyncWriteTests {
    @Test func aCancelledRefreshReturnsFalseAndACancelledWaitForTheDiskStillCommits() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        let realm = try await Realm.open(configuration: configuration)
        let writer = try Realm(configuration: configuration)
        try writer.write { writer.add(Counter(value: ["id": 1])) }
        let refresh = Task {
            let other = try await Realm.open(configuration: configuration)
            let third = try Realm(configuration: configuration)
            try third.write { third.add(Counter(value: ["id": 3])) }
            withUnsafeCurrentTask { $0?.cancel() }
            let refreshedWhenCancelled = await other.asyncRefresh()
            return (refreshedWhenCancelled, other.refresh())
        }
        let (refreshedWhenCancelled, refreshedAfterwards) = try await refresh.value
        #expect(!refreshedWhenCancelled && refreshedAfterwards, "there was a version to move to")
        try writer.write { writer.delete(writer.objects(Counter.self).filter { $0.id == 3 }) }
        // Once the block has run, the commit is on its way to the disk: cancelling the task then
        // does not undo it, and asyncWrite still returns its result.
        let write = Task {
            let own = try await Realm.open(configuration: configuration)
            return try await own.asyncWrite {
                withUnsafeCurrentTask { $0?.cancel() }
                return own.create(Counter.self, value: ["id": 2]).id
            }
        }
        #expect(try await write.value == 2)
        #expect(await realm.asyncRefresh() && realm.objects(Counter.self).count == 2)
    }
}

/// Opens its realm in `init` the way Realm documents it: the property has a default, so the
/// initializer is isolated to the actor, and the handle is the actor's from the start.
actor InitOpenedService {
    private var realm: Realm!

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm(configuration: configuration, actor: self)
    }

    func count() -> Int { realm.objects(Counter.self).count }
}

/// Opens its realm in `init` before the actor is initialised: the handle belongs to no actor
/// until its first asyncRefresh or asyncWrite on the actor.
actor EarlyOpenedService {
    let realm: Realm

    init(configuration: Realm.Configuration) async throws {
        realm = try await Realm.open(configuration: configuration)
    }

    func count() -> Int { realm.objects(Counter.self).count }

    func refresh() async { _ = await realm.asyncRefresh() }
}

extension AsyncWriteTests {
    @Test(.timeLimit(.minutes(1))) func realmsOpenedInAnActorsInitAdvanceOnTheActor() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        let writer = try Realm(configuration: configuration)
        let bound = try await InitOpenedService(configuration: configuration)
        let early = try await EarlyOpenedService(configuration: configuration)
        await early.refresh()  // binds the handle to the actor
        for id in 1...3 {
            try writer.write { writer.add(Counter(value: ["id": id])) }
            // Both advance by themselves, on their actors (autorefresh), with no refresh call.
            while await bound.count() < id { await Task.yield() }
            while await early.count() < id { await Task.yield() }
        }
        #expect(await bound.count() == 3)
        #expect(await early.count() == 3)
    }
}

/// Runs `body` from the caller's isolation — yet `body`, an async closure that does not capture
/// an actor, is itself nonisolated and runs on no actor (Swift 6.3 without
/// `NonisolatedNonsendingByDefault`). The compiler accepts it, so this is how a realm leaves its
/// actor without a diagnostic; a timing helper like this one is the usual way.
func timed(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> Void) async rethrows {
    try await body()
}

/// Uses its realm off its actor: the handle, isolated to the actor, would race with its own
/// autorefresh there.
actor OffActorWriter {
    var realm: Realm?

    func writeOffTheActor(_ configuration: Realm.Configuration) async throws {
        let realm = try await Realm.open(configuration: configuration)
        try await timed {
            try await realm.asyncWrite { realm.add(Counter(value: ["id": 1])) }
        }
    }

    /// The same closure using `self`: it captures the actor, so it runs on it.
    func writeThroughSelf(_ configuration: Realm.Configuration) async throws -> Int {
        realm = try await Realm.open(configuration: configuration)
        try await timed {
            try await self.realm!.asyncWrite { self.realm!.add(Counter(value: ["id": 1])) }
        }
        return realm!.objects(Counter.self).count
    }
}

extension AsyncWriteTests {
    /// A handle isolated to an actor and written from off that actor traps, naming both, as
    /// Realm's "incorrect thread" exception does; before, it raced with its autorefresh there
    /// and crashed in reference counting one run in five (commit-bench's first version did this).
    @Test func anActorIsolatedRealmWrittenOffItsActorTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
            try await OffActorWriter().writeOffTheActor(configuration)
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("Realm accessed from incorrect actor") && message.contains("asyncWrite")
                        && message.contains("nonisolated context") && message.contains("OffActorWriter"), "\(message)")
        }
    }

    /// What the Concurrency article tells users to do instead works.
    @Test func aClosureUsingTheActorWritesOnIt() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        #expect(try await OffActorWriter().writeThroughSelf(configuration) == 1)
    }
}
