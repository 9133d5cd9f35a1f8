import Dispatch
import Foundation
import Testing
import RealmActors

final class OBDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

final class OBOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var dogs: List<OBDog>
}

/// Realm Swift's callback API: `observe` on a queue (token at once, elements on the queue in
/// order), on an actor from the actor that owns the collection, on lists, and with key paths.
@Suite(.timeLimit(.minutes(1))) struct ObserveTests {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
    }

    /// Elements a block receives, as an async sequence the test can wait on.
    static func collector<T: Sendable>(_ type: T.Type) -> (AsyncStream<T>, @Sendable (T) -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: T.self)
        return (stream, { continuation.yield($0) })
    }

    @Test func resultsDeliverToAQueueInOrder() async throws {
        let realm = try Self.realm()
        let queue = DispatchQueue(label: "ObserveTests")
        let (stream, collect) = Self.collector(String.self)
        let token = realm.objects(OBDog.self).where { $0.age < 5 }.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let dogs): collect("initial \(dogs.count)")
            case .update(let dogs, let deletions, let insertions, let modifications):
                collect("update \(dogs.count) -\(deletions) +\(insertions) ~\(modifications)")
            case .error(let error): collect("error \(error)")
            }
        }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == "initial 0")
        try realm.write { realm.add(OBDog(value: ["id": 1, "age": 2])) }
        #expect(await received.next() == "update 1 -[] +[0] ~[]")
        try realm.write { realm.object(ofType: OBDog.self, forPrimaryKey: 1)?.name = "Rex" }
        #expect(await received.next() == "update 1 -[] +[] ~[0]")
        token.invalidate()
    }

    @Test @MainActor func resultsObserveOnTheMainActorFromTheMainActor() async throws {
        let realm = try Self.realm()
        let (stream, collect) = Self.collector(Int.self)
        let dogs = realm.objects(OBDog.self)
        let token = await dogs.observe(on: MainActor.shared) { _, change in
            if case .initial(let dogs) = change { collect(dogs.count) }
            if case .update(let dogs, _, _, _) = change { collect(dogs.count) }
        }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == 0)
        try await realm.asyncWrite { realm.add(OBDog(value: ["id": 7])) }
        #expect(await received.next() == 1)
        token.invalidate()
    }

    @Test func listsAndObjectsObserveWithKeyPaths() async throws {
        let realm = try Self.realm()
        let owner = try realm.write { realm.create(OBOwner.self, value: ["id": 1, "dogs": [["id": 1], ["id": 2]]]) }
        let (lists, collectList) = Self.collector(String.self)
        let listToken = owner.dogs.observe(keyPaths: ["name"]) { change in
            if case .initial(let dogs) = change { collectList("initial \(dogs.count)") }
            if case .update(_, _, let insertions, let modifications) = change { collectList("+\(insertions) ~\(modifications)") }
        }
        var listChanges = lists.makeAsyncIterator()
        #expect(await listChanges.next() == "initial 2")

        let dog = try #require(realm.object(ofType: OBDog.self, forPrimaryKey: 2))
        let (objects, collectObject) = Self.collector([String].self)
        let objectToken = dog.observe(keyPaths: [\OBDog.age]) { change in
            if case .change(_, let properties) = change { collectObject(properties.map(\.name)) }
        }
        // Only age counts for the object observer; only name for the list's.
        try realm.write { dog.name = "Fido" }
        #expect(await listChanges.next() == "+[] ~[1]")
        try realm.write { dog.age = 3 }
        var objectChanges = objects.makeAsyncIterator()
        #expect(await objectChanges.next() == ["age"])
        try realm.write { owner.dogs.append(OBDog(value: ["id": 3])) }
        #expect(await listChanges.next() == "+[2] ~[]")
        listToken.invalidate()
        objectToken.invalidate()
    }
}
