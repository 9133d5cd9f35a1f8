import Foundation
import Testing
import RealmActors

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
