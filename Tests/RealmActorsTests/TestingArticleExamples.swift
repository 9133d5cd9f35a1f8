import Foundation
import RealmActors
import Testing
import RealmTestSupport

/// The examples of the DocC article "Testing with In-Memory Realms", as the article shows them
/// (with this target's `Dog`), so that the article cannot drift from what works.
@Suite(.timeLimit(.minutes(1))) struct TestingArticleExamples {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "kennel-\(UUID())", objectTypes: [Dog.self]))
    }

    @Test func adoptingAddsADog() throws {
        let realm = try Self.realm()
        try realm.write { realm.add(Dog(value: ["name": "Rex", "age": 1])) }
        #expect(realm.objects(Dog.self).filter("age < 2").count == 1)
    }

    @Test func anotherActorSeesTheWrite() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "shared-\(UUID())", objectTypes: [Dog.self])
        let realm = try await Realm.open(configuration: configuration)
        try await realm.asyncWrite { realm.add(Dog(value: ["name": "Rex"])) }
        let count = try await Task.detached {
            try await Realm.open(configuration: configuration).objects(Dog.self).count
        }.value
        #expect(count == 1)
        withExtendedLifetime(realm) {}
    }

    @Test func theDogSurvivesAReopen() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("kennel.realm"),
                                                objectTypes: [Dog.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.add(Dog(value: ["name": "Rex"])) }
        }   // the last handle goes: the file is closed
        #expect(try Realm(configuration: configuration).objects(Dog.self).count == 1)
    }

    @Test func theStreamReportsTheAdoption() async throws {
        let realm = try await Realm.open(configuration: Realm.Configuration(inMemoryIdentifier: "stream-\(UUID())",
                                                                             objectTypes: [Dog.self]))
        var changes = realm.objects(Dog.self).changes.makeAsyncIterator()
        _ = await changes.next()                       // .initial
        try await realm.asyncWrite { realm.add(Dog(value: ["name": "Rex"])) }
        guard case .update(let dogs, _, let insertions, _)? = await changes.next() else {
            Issue.record("expected an update"); return
        }
        #expect(insertions == [0])
        #expect(dogs.first?.name == "Rex")
    }

    @Test func writingOutsideATransactionTraps() async {
        await #expect(processExitsWith: .failure) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "trap"))
            let dog = Dog()
            try realm.write { realm.add(dog) }
            dog.name = "Rex"                           // outside write: traps
        }
    }
}
