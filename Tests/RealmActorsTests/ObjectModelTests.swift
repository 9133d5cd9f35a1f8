import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age: Int?
    var ignored = "not persisted"
}

final class AllTypes: Object {
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var uuid = UUID()
    @Persisted var optionalInt: Int?
    @Persisted var optionalString: String?
    @Persisted var optionalDate: Date?
    @Persisted var optionalBool: Bool?
    @Persisted var optionalDouble: Double?
}

final class Person: Object {
    @Persisted(primaryKey: true) var email = ""
    @Persisted(indexed: true) var city = ""
    @Persisted var name = ""
    @Persisted var age = 0
}

func fileConfiguration(_ directory: TemporaryDirectory, _ name: String = "test.realm") -> Realm.Configuration {
    Realm.Configuration(fileURL: directory.url.appendingPathComponent(name))
}

@Suite struct ObjectModelTests {
    @Test func addedInstanceBecomesManagedAndLive() throws {
        let directory = try TemporaryDirectory()
        let realm = try Realm(configuration: fileConfiguration(directory))
        let dog = Dog()
        dog.id = 1
        dog.name = "Rex"
        #expect(dog.realm == nil)
        try realm.write { realm.add(dog) }
        #expect(dog.realm === realm)
        #expect(dog.name == "Rex" && dog.age == nil && dog.ignored == "not persisted")

        // A second accessor sees the same object, and each sees the other's writes at once.
        let other = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        try realm.write {
            other.name = "Max"
            #expect(dog.name == "Max")
            dog.age = 3
            #expect(other.age == 3)
        }
        #expect(dog == other)
        #expect(realm.objects(Dog.self).count == 1)
    }

    @Test func everyTypeRoundTripsThroughTheFile() throws {
        let directory = try TemporaryDirectory()
        let config = fileConfiguration(directory)
        let uuid = UUID()
        let big = String(repeating: "é", count: 100_000)
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let extremes = AllTypes()
                extremes.bool = true
                extremes.int = .min
                extremes.int8 = .min
                extremes.int16 = .max
                extremes.int32 = .min
                extremes.int64 = .max
                extremes.float = .greatestFiniteMagnitude
                extremes.double = .nan
                extremes.string = big
                extremes.data = Data((0..<5000).map { UInt8($0 % 251) })
                extremes.date = .distantFuture
                extremes.uuid = uuid
                extremes.optionalInt = .max
                extremes.optionalString = ""
                extremes.optionalDate = .distantPast
                extremes.optionalBool = false
                extremes.optionalDouble = -.infinity
                realm.add(extremes)
                realm.add(AllTypes())  // every default
            }
        }
        let realm = try Realm(configuration: config)
        let objects = realm.objects(AllTypes.self)
        #expect(objects.count == 2)
        let first = objects[0]
        #expect(first.bool && first.int == .min && first.int8 == .min && first.int16 == .max)
        #expect(first.int32 == .min && first.int64 == .max && first.float == .greatestFiniteMagnitude)
        #expect(first.double.isNaN && first.string == big && first.data.count == 5000 && first.data[4999] == UInt8(4999 % 251))
        #expect(first.date == .distantFuture && first.uuid == uuid)
        #expect(first.optionalInt == .max && first.optionalString == "" && first.optionalDate == .distantPast)
        #expect(first.optionalBool == false && first.optionalDouble == -.infinity)
        let second = objects[1]
        #expect(!second.bool && second.int == 0 && second.string == "" && second.data.isEmpty)
        #expect(second.date == Date(timeIntervalSince1970: 0))
        #expect(second.optionalInt == nil && second.optionalString == nil && second.optionalDate == nil && second.optionalBool == nil)
    }

    @Test func initialValuesThatVaryPerInstanceAreStoredPerObject() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let first = AllTypes()  // `uuid = UUID()`: a different initial value for every instance
        let second = AllTypes()
        let (firstUUID, secondUUID) = (first.uuid, second.uuid)
        #expect(firstUUID != secondUUID)
        try realm.write { realm.add([first, second]) }
        #expect(first.uuid == firstUUID && second.uuid == secondUUID)
    }

    @Test func unmanagedObjectsArePlainObjects() {
        let dog = Dog()
        #expect(dog.name == "" && dog.age == nil && dog.realm == nil && !dog.isInvalidated)
        dog.name = "Rex"
        dog.age = 2
        #expect(dog.name == "Rex" && dog.age == 2)
        let copy = Dog(value: ["name": "Fido", "age": 4, "id": 7])
        #expect(copy.name == "Fido" && copy.age == 4 && copy.id == 7)
        copy.name = "Fido II"
        #expect(copy.name == "Fido II")
        let fromArray = Dog(value: [9, "Spot", nil])
        #expect(fromArray.id == 9 && fromArray.name == "Spot" && fromArray.age == nil)
        #expect(copy["name"] as? String == "Fido II")
        copy["age"] = 5
        #expect(copy.age == 5)
    }

    @Test func deletedObjectsAreInvalidated() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let dog = Dog(value: ["id": 1, "name": "Rex"])
        try realm.write { realm.add(dog) }
        let other = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        try realm.write { realm.delete(dog) }
        #expect(dog.isInvalidated && other.isInvalidated)
        #expect(realm.objects(Dog.self).isEmpty)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1) == nil)
    }

    @Test func duplicatePrimaryKeyFailsTheTransaction() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(Person(value: ["email": "a@x", "name": "A"])) }
        #expect(throws: Realm.Error.self) {
            try realm.write {
                realm.add(Person(value: ["email": "b@x"]))
                realm.add(Person(value: ["email": "a@x", "name": "again"]))
            }
        }
        // Nothing of the failed transaction was written.
        #expect(realm.objects(Person.self).count == 1)
        #expect(realm.object(ofType: Person.self, forPrimaryKey: "a@x")?.name == "A")
        do {
            try realm.write { realm.add(Dog(value: ["id": 1])); realm.add(Dog(value: ["id": 1])) }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("existing primary key value '1'"))
        }
    }

    @Test func updatePoliciesUpdateTheExistingObject() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(Person(value: ["email": "a@x", "city": "Oslo", "name": "A", "age": 30])) }
        // A partial update keeps the properties it does not mention.
        try realm.write { realm.create(Person.self, value: ["email": "a@x", "age": 31], update: .modified) }
        var person = try #require(realm.object(ofType: Person.self, forPrimaryKey: "a@x"))
        #expect(person.age == 31 && person.name == "A" && person.city == "Oslo")
        // `.all` with a whole object replaces every property.
        let replacement = Person(value: ["email": "a@x", "city": "Rome", "name": "B", "age": 1])
        try realm.write { realm.add(replacement, update: .all) }
        person = try #require(realm.object(ofType: Person.self, forPrimaryKey: "a@x"))
        #expect(person.city == "Rome" && person.name == "B" && person.age == 1)
        #expect(replacement.realm != nil && replacement == person)
        #expect(realm.objects(Person.self).count == 1)
        // Updating needs a primary key.
        #expect(throws: Realm.Error.self) { try realm.write { realm.add(AllTypes(), update: .all) } }
    }

    @Test func aThrowingBlockRollsBack() throws {
        struct Stop: Error {}
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        #expect(throws: Stop.self) {
            try realm.write {
                realm.add(Dog(value: ["id": 1]))
                throw Stop()
            }
        }
        #expect(realm.objects(Dog.self).isEmpty && !realm.isInWriteTransaction)
        realm.beginWrite()
        let dog = realm.create(Dog.self, value: ["id": 2])
        realm.cancelWrite()
        #expect(dog.isInvalidated)
        #expect(throws: Realm.Error.self) {
            try realm.write { try realm.write {} }
        }
    }

    @Test func inMemoryRealmsShareDataUntilTheLastHandleCloses() throws {
        let identifier = UUID().uuidString
        let config = Realm.Configuration(inMemoryIdentifier: identifier)
        do {
            let first = try Realm(configuration: config)
            try first.write { first.add(Dog(value: ["id": 1])) }
            let second = try Realm(configuration: config)
            #expect(second.objects(Dog.self).count == 1)
        }
        let later = try Realm(configuration: config)
        #expect(later.objects(Dog.self).isEmpty)
    }

    @Test func resultsAreLiveAndIterateASnapshot() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let dogs = realm.objects(Dog.self)
        #expect(dogs.isEmpty)
        try realm.write {
            for id in 0..<500 { realm.add(Dog(value: ["id": id, "name": "dog \(id)"])) }
            #expect(dogs.count == 500)  // live inside the write, too
        }
        #expect(dogs.count == 500 && dogs.first?.id == 0 && dogs.last?.id == 499 && dogs[250].name == "dog 250")
        try realm.write {
            for dog in dogs where dog.id % 2 == 0 { realm.delete(dog) }  // the loop's snapshot is unaffected
        }
        #expect(dogs.count == 250 && dogs.allSatisfy { $0.id % 2 == 1 })
        #expect(dogs.index(of: dogs[10]) == 10)
        try realm.write { realm.deleteAll() }
        #expect(realm.isEmpty)
    }

    @Test func iterationWalksASnapshotEvenWhenTheLoopWrites() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { for id in 0..<600 { realm.add(Dog(value: ["id": id, "name": "dog \(id)"])) } }
        var visited = 0
        for dog in realm.objects(Dog.self) {
            // Each write makes a new version and frees pages of older ones; the loop keeps its own.
            let id = dog.id
            try realm.write {
                if id % 3 == 0 { realm.delete(dog) } else { dog.name = "renamed \(id)" }
                realm.add(Dog(value: ["id": 10_000 + id]))
            }
            visited += 1
        }
        #expect(visited == 600)
        let remaining = realm.objects(Dog.self)
        #expect(remaining.count == 600 - 200 + 600)
        #expect(remaining.filter { $0.id < 10_000 }.allSatisfy { $0.name == "renamed \($0.id)" })
    }

    @Test func schemaChangesNeedAHigherVersion() throws {
        let directory = try TemporaryDirectory()
        var config = fileConfiguration(directory)
        config.objectTypes = [Person.self]
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(Person(value: ["email": "a@x", "city": "Oslo", "age": 3])) }
        }
        // PersonV2 stores under the same class name with a property added and one removed.
        var changed = config
        changed.objectTypes = [PersonV2.self]
        do {
            _ = try Realm(configuration: changed)
            Issue.record("expected schemaMismatch")
        } catch let error as Realm.Error {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("Property 'Person.nickname' has been added."))
            #expect(error.message.contains("Property 'Person.age' has been removed."))
        }
        changed.schemaVersion = 1
        let realm = try Realm(configuration: changed)
        let person = try #require(realm.object(ofType: PersonV2.self, forPrimaryKey: "a@x"))
        #expect(person.city == "Oslo" && person.nickname == nil)
        try realm.write { person.nickname = "Al" }
        #expect(realm.objects(PersonV2.self).filter { $0.city == "Oslo" }.count == 1)
        // Going back to a lower version is refused.
        changed.schemaVersion = 0
        #expect(throws: Realm.Error.self) { _ = try Realm(configuration: changed) }
    }

    @Test func valuesOver16MBFailTheTransaction() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        do {
            try realm.write { realm.add(AllTypes(value: ["data": Data(count: 16 * 1024 * 1024 + 1)])) }
            Issue.record("expected an error")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput)
        }
        try realm.write { realm.add(AllTypes(value: ["data": Data(count: 16 * 1024 * 1024)])) }
        #expect(realm.objects(AllTypes.self).first?.data.count == 16 * 1024 * 1024)
    }
}

/// The second version of `Person`: `age` removed, `nickname` added.
final class PersonV2: Object {
    override class func className() -> String { "Person" }
    @Persisted(primaryKey: true) var email = ""
    @Persisted(indexed: true) var city = ""
    @Persisted var name = ""
    @Persisted var nickname: String?
}

@Suite struct RealmHandleTests {
    @Test func schemaDescribesTheStoredClasses() throws {
        var config = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        config.objectTypes = [Person.self, Dog.self]
        let realm = try Realm(configuration: config)
        let person = try #require(realm.schema["Person"])
        #expect(person.primaryKeyProperty?.name == "email")
        #expect(person.properties.map(\.name) == ["email", "city", "name", "age"])
        #expect(person["city"]?.isIndexed == true && person["city"]?.type == .string)
        #expect(realm.schema["Dog"]?["age"]?.isOptional == true)
        #expect(realm.schema["Cat"] == nil)
    }

    @Test func handlesSeeOtherHandlesCommitsAfterRefresh() throws {
        let directory = try TemporaryDirectory()
        let config = fileConfiguration(directory)
        let reader = try Realm(configuration: config)
        let writer = try Realm(configuration: config)
        try writer.write { writer.add(Dog(value: ["id": 1])) }
        #expect(reader.objects(Dog.self).isEmpty)  // still reading its version
        #expect(reader.refresh())
        #expect(reader.objects(Dog.self).count == 1)
        #expect(!reader.refresh())
    }

    @Test func invalidateInvalidatesEverythingRead() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(Dog(value: ["id": 1])) }
        let dog = try #require(realm.object(ofType: Dog.self, forPrimaryKey: 1))
        realm.invalidate()
        #expect(dog.isInvalidated)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 1)?.isInvalidated == false)
    }

    @Test func readOnlyRealmsOpenExistingFilesOnly() throws {
        let directory = try TemporaryDirectory()
        var config = fileConfiguration(directory)
        config.readOnly = true
        #expect(throws: Realm.Error.self) { _ = try Realm(configuration: config) }
        do {
            let writable = try Realm(configuration: fileConfiguration(directory))
            try writable.write { writable.add(Dog(value: ["id": 7, "name": "Rex"])) }
        }
        let realm = try Realm(configuration: config)
        #expect(realm.object(ofType: Dog.self, forPrimaryKey: 7)?.name == "Rex")
    }

    @Test func aCorruptFileIsAnErrorNotACrash() throws {
        let directory = try TemporaryDirectory()
        let config = fileConfiguration(directory)
        try Data("this is not a realm".utf8).write(to: config.fileURL!)
        do {
            _ = try Realm(configuration: config)
            Issue.record("expected invalidDatabase")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidDatabase)
            #expect(error.fileURL == config.fileURL)
        }
    }
}

/// A model in Realm's legacy style: no `@Persisted`, so nothing would be stored.
final class LegacyStyleDog: Object {
    dynamic var name = ""
    let toys = List<String>()
}

/// A model with `@Persisted` properties and a transient one, which is ignored as in Realm.
final class TransientFieldDog: Object {
    @Persisted var name = ""
    var cachedGreeting = "woof"
}

@Suite struct LegacyModelTests {
    @Test func aLegacyStyleModelIsRefusedAtRegistration() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
            try realm.write { realm.add(LegacyStyleDog()) }
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("Class 'LegacyStyleDog' declares no @Persisted property but stores 'name' and 1 more"), "\(message)")
            #expect(message.contains("@Persisted var name"))
        }
    }

    @Test func nonPersistedPropertiesBesidePersistedOnesAreIgnored() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.add(TransientFieldDog(value: ["name": "Rex"])) }
        #expect(realm.schema["TransientFieldDog"]?.properties.map(\.name) == ["name"])
        #expect(realm.objects(TransientFieldDog.self).first?.cachedGreeting == "woof")
    }
}

final class LOWrongOwner: Object {
    @Persisted var name = ""
    @Persisted var pets: List<LOPet>
}

final class LOPet: Object {
    @Persisted var name = ""
}

/// Declares linking objects through `LOWrongOwner.pets`, which links to `LOPet`, not to this class.
final class LOWrongTarget: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "pets") var owners: LinkingObjects<LOWrongOwner>
}

final class LOMissingOrigin: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "nosuch") var owners: LinkingObjects<LOWrongOwner>
}

/// Realm's schema rule for linking objects: the origin property must exist and link to the
/// declaring class.
@Suite struct LinkingObjectsDeclarationTests {
    @Test func anOriginLinkingElsewhereIsRefusedAtOpen() throws {
        var configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        configuration.objectTypes = [LOWrongTarget.self, LOWrongOwner.self, LOPet.self]
        let error = try #require(throws: Realm.Error.self) { try Realm(configuration: configuration) }
        #expect(error.message.contains("Property 'LOWrongOwner.pets' declared as origin of linking objects property 'LOWrongTarget.owners' links to type 'LOPet'"))
        configuration.objectTypes = [LOMissingOrigin.self, LOWrongOwner.self, LOPet.self]
        let missing = try #require(throws: Realm.Error.self) { try Realm(configuration: configuration) }
        #expect(missing.message.contains("'LOWrongOwner.nosuch' declared as origin of linking objects property 'LOMissingOrigin.owners' does not exist"))
    }

    @Test func anOriginLinkingElsewhereIsRefusedAtFirstUse() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let error = try #require(throws: Realm.Error.self) {
            try realm.write { realm.add(LOWrongTarget(value: ["name": "x"])) }
        }
        #expect(error.message.contains("links to type 'LOPet'"))
        #expect(realm.objects(LOPet.self).isEmpty)
    }
}
