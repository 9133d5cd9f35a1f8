import Foundation
import RealmActors
import Testing

/// The examples of the DocC article "Writes and Transactions", as the article shows them (with
/// this target's `Dog`).
@Suite(.timeLimit(.minutes(1))) struct WritesArticleExamples {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "writes-\(UUID())", objectTypes: [Dog.self]))
    }

    @Test func writing() async throws {
        let realm = try Self.realm()
        let dog = try realm.write {
            realm.create(Dog.self, value: ["id": 1, "name": "Rex"])
        }
        try realm.write { dog.age = 3 }
        let adopted = try await realm.asyncWrite {
            realm.create(Dog.self, value: ["id": 2, "name": "Fido"])
        }
        #expect(dog.age == 3 && adopted.name == "Fido" && realm.objects(Dog.self).count == 2)
    }

    @Test func allOrNothing() throws {
        let realm = try Self.realm()
        try realm.write { realm.add(Dog(value: ["id": 1])) }
        var message: String?
        do {
            try realm.write {
                realm.add(Dog(value: ["id": 2]))
                realm.add(Dog(value: ["id": 1]))   // id 1 exists: recorded, the block goes on
            }
        } catch let error as Realm.Error where error.code == .invalidInput {
            message = error.message                 // nothing of the transaction was written
        }
        #expect(message != nil)
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func aThrowingBlockRollsBack() throws {
        struct Refused: Error {}
        let realm = try Self.realm()
        #expect(throws: Refused.self) {
            try realm.write {
                realm.add(Dog(value: ["id": 7]))
                throw Refused()
            }
        }
        #expect(realm.objects(Dog.self).isEmpty && !realm.isInWriteTransaction)
    }

    @Test func cancellingBeforeTheLockRunsNothing() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: "cancel-\(UUID())", objectTypes: [Dog.self])
        let realm = try await Realm.open(configuration: configuration)
        let ran = try await Task {
            let other = try await Realm.open(configuration: configuration)
            withUnsafeCurrentTask { $0?.cancel() }
            var ran = false
            await #expect(throws: CancellationError.self) { try await other.asyncWrite { ran = true } }
            return ran
        }.value
        #expect(!ran)
        withExtendedLifetime(realm) {}
    }
}
