import Dispatch
import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class OADog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var nickname: String?
    @Persisted var senior = false
    @Persisted var owner: OAPerson?
}

final class OAPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var dogs: List<OADog>
    @Persisted var favourites: MutableSet<OADog>
}

/// Key-value coding, objectSchema, isSameObject, dynamic collections and members, and thawing
/// frozen values — Realm Swift's object members beyond `@Persisted` access.
@Suite struct ObjectAccessTests {
    static func populated() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write {
            let ann = realm.create(OAPerson.self, value: ["id": 1, "name": "Ann"])
            for (id, name, age) in [(1, "Rex", 12), (2, "Ace", 3), (3, "Max", 15)] {
                let dog = realm.create(OADog.self, value: ["id": id, "name": name, "age": age, "owner": ann])
                ann.dogs.append(dog)
            }
            ann.favourites.insert(ann.dogs[1])
        }
        return realm
    }

    @Test func keyValueCodingOnObjects() throws {
        let realm = try Self.populated()
        let rex = try #require(realm.object(ofType: OADog.self, forPrimaryKey: 1))
        #expect(rex.value(forKey: "name") as? String == "Rex")
        #expect(rex.value(forKeyPath: "owner.name") as? String == "Ann")
        try realm.write { rex.setValue(13, forKey: "age") }
        #expect(rex.age == 13)
        let unmanaged = OADog()
        unmanaged.setValue("Pup", forKey: "name")
        #expect(unmanaged.name == "Pup" && unmanaged.value(forKeyPath: "owner.name") == nil)
    }

    @Test func keyValueCodingOnCollections() throws {
        let realm = try Self.populated()
        let dogs = realm.objects(OADog.self)
        #expect(dogs.value(forKey: "name") as? [String] == ["Rex", "Ace", "Max"])
        #expect(dogs.value(forKeyPath: "owner.name") as? [String] == ["Ann", "Ann", "Ann"])
        #expect(dogs.value(forKey: "nickname") as? [String?] == [nil, nil, nil])
        #expect(dogs.value(forKeyPath: "@count") as? Int == 3)
        let ann = try #require(realm.object(ofType: OAPerson.self, forPrimaryKey: 1))
        #expect(ann.dogs.value(forKey: "age") as? [Int] == [12, 3, 15])
        // A bulk update through a filter reaches every object, even those it makes leave.
        let old = dogs.where { $0.age > 10 && $0.senior == false }
        try realm.write { old.setValue(true, forKey: "senior") }
        #expect(old.isEmpty)
        #expect(dogs.filter("senior == true").map(\.name) == ["Rex", "Max"])
    }

    @Test func schemaAndIdentity() throws {
        let realm = try Self.populated()
        let rex = try #require(realm.object(ofType: OADog.self, forPrimaryKey: 1))
        #expect(rex.objectSchema.className == "OADog")
        #expect(rex.objectSchema.primaryKeyProperty?.name == "id")
        #expect(OADog().objectSchema["owner"]?.objectClassName == "OAPerson")
        let again = try #require(realm.objects(OADog.self).first)
        #expect(rex.isSameObject(as: again))
        #expect(!rex.isSameObject(as: realm.objects(OADog.self)[1]))
        #expect(!rex.isSameObject(as: nil))
        let unmanaged = OADog()
        #expect(unmanaged.isSameObject(as: unmanaged) && !unmanaged.isSameObject(as: OADog()))
    }

    @Test func dynamicCollectionsAndMembers() throws {
        let realm = try Self.populated()
        let ann = try #require(realm.dynamicObject(ofType: "OAPerson", forPrimaryKey: 1))
        #expect(ann.name as? String == "Ann")
        #expect(ann.objectSchema.className == "OAPerson")
        let dogs = ann.dynamicList("dogs")
        #expect(dogs.map { $0.name as? String } == ["Rex", "Ace", "Max"])
        #expect(ann.dynamicMutableSet("favourites").map { $0["name"] as? String } == ["Ace"])
        try realm.write {
            ann.name = "Anna"
            dogs.remove(at: 0)
        }
        let person = try #require(realm.object(ofType: OAPerson.self, forPrimaryKey: 1))
        #expect(person.name == "Anna" && person.dogs.map(\.name) == ["Ace", "Max"])
    }

    @Test func freezingFilteredResultsKeepsTheQuery() async throws {
        let realm = try Self.populated()
        let old = realm.objects(OADog.self).where { $0.age > 10 }.sorted(byKeyPath: "age", ascending: false)
        let frozen = old.freeze()
        #expect(frozen.map(\.name) == ["Max", "Rex"])
        #expect(frozen.filter("name BEGINSWITH 'R'").map(\.name) == ["Rex"])
        try realm.write { realm.create(OADog.self, value: ["id": 4, "name": "Old", "age": 20]) }
        #expect(frozen.count == 2)
        let thawed = realm.thaw(frozen)
        #expect(thawed.map(\.name) == ["Old", "Max", "Rex"])
        #expect(frozen.thaw(in: realm) == thawed)
        let refined = frozen.filter("name BEGINSWITH 'R'").thaw(in: realm)
        #expect(refined.map(\.name) == ["Rex"])
    }

    @Test func thawOnTheCallersIsolation() async throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("thaw.realm"))
        let realm = try await Realm.open(configuration: configuration)
        let frozen = try await realm.asyncWrite { realm.create(OADog.self, value: ["id": 9, "name": "Ice"]) }.freeze()
        let dog = try #require(try await frozen.thaw())
        #expect(dog.name == "Ice" && !dog.isFrozen)
        let all = try await realm.objects(OADog.self).freeze().thaw()
        #expect(all.count == 1 && all.realm?.isFrozen == false)
    }
}

/// Realm Swift's callback opening and dynamic creation.
@Suite struct OpeningAndDynamicCreationTests {
    @Test func asyncOpenDeliversAHandleOnTheQueue() async throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("open.realm"))
        let queue = DispatchQueue(label: "OpeningTests")
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { result in
            dispatchPrecondition(condition: .onQueue(queue))
            switch result {
            case .success(let realm):
                _ = try? realm.write { realm.create(OADog.self, value: ["id": 1, "name": "Q"]) }
                continuation.yield("opened \(realm.objects(OADog.self).count)")
            case .failure(let error): continuation.yield("failed \(error)")
            }
        }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == "opened 1")

        // A file that is not a realm fails, on the queue.
        let garbage = directory.url.appendingPathComponent("garbage.realm")
        try Data(repeating: 0x5A, count: 10_000).write(to: garbage)
        Realm.asyncOpen(configuration: Realm.Configuration(fileURL: garbage), callbackQueue: queue) { result in
            if case .failure(let error as Realm.Error) = result { continuation.yield("failed \(error.code)") }
            else { continuation.yield("unexpected \(result)") }
        }
        #expect(await received.next()?.hasPrefix("failed") == true)
    }

    @Test func cancelledAsyncOpenNeverCallsBack() async throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("cancel.realm"))
        let queue = DispatchQueue(label: "OpeningTests.cancel")
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        queue.suspend()  // the callback cannot run before cancel()
        let task = Realm.asyncOpen(configuration: configuration, callbackQueue: queue) { _ in continuation.yield("called") }
        task.cancel()
        queue.async { continuation.yield("after") }
        queue.resume()
        var received = stream.makeAsyncIterator()
        // Whether the open finished before or after cancel(), its callback is skipped.
        let first = await received.next()
        let second: String? = first == "after" ? nil : await received.next()
        #expect(first == "after" || second == "after")
        #expect(first != "called" && second != "called")
    }

    @Test func dynamicCreateAndDynamicObject() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { realm.create(OAPerson.self, value: ["id": 1, "name": "Ann"]) }
        let created = try realm.write {
            realm.dynamicCreate("OADog", value: ["id": 5, "name": "Dyn", "owner": realm.dynamicObject(ofType: "OAPerson", forPrimaryKey: 1) as Any])
        }
        #expect(created.name as? String == "Dyn" && created.objectSchema.className == "OADog")
        let dog = try #require(realm.object(ofType: OADog.self, forPrimaryKey: 5))
        #expect(dog.owner?.name == "Ann")
        try realm.write { realm.dynamicCreate("OADog", value: ["id": 5, "age": 9], update: .modified) }
        #expect(dog.age == 9 && dog.name == "Dyn")
        let mixed = AnyRealmValue.object(dog)
        #expect(mixed.dynamicObject?.name as? String == "Dyn")
        #expect(AnyRealmValue.int(1).dynamicObject == nil)
    }
}
