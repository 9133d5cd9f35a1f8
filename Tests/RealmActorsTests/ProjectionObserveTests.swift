import Dispatch
import Foundation
import Testing
import RealmActors

final class POAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class POPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
    @Persisted var address: POAddress?
    @Persisted var notProjected = 0
}

final class POProjection: Projection<POPerson> {
    @Projected(\POPerson.firstName) var name
    @Projected(\POPerson.lastName) var surname
    @Projected(\POPerson.lastName.localizedUppercase) var lastNameCaps
    @Projected(\POPerson.age) var age
    @Projected(\POPerson.address?.city) var homeCity
}

/// Receives frozen projections from other isolation domains.
private actor Directory {
    var names: [String] = []
    func show(_ person: Frozen<POProjection>) { names.append(person.name) }
}

/// Observing projections and projected results, freezing and thawing them: Realm Swift's
/// `ProjectionTests` notification and frozen-object cases, with frozen payloads.
@Suite(.timeLimit(.minutes(1))) struct ProjectionObserveTests {
    static func realm() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString,
                                                                 objectTypes: [POPerson.self, POAddress.self]))
        try realm.write {
            realm.add(POPerson(value: ["id": 1, "firstName": "Jon", "lastName": "Snow", "age": 30, "address": ["city": "Winterfell"]]))
            realm.add(POPerson(value: ["id": 2, "firstName": "Arya", "lastName": "Stark", "age": 18]))
        }
        return realm
    }

    static func jon(_ realm: Realm) throws -> POProjection {
        try #require(realm.objects(POProjection.self).filter("id == 1").first)
    }

    /// `name old→new` for each property change, or `deleted`.
    static func describe(_ change: ObjectChange<POProjection>) -> String {
        switch change {
        case .change(let person, let properties):
            "\(person.name): " + properties.map { "\($0.name) \($0.oldValue ?? "nil")→\($0.newValue ?? "nil")" }.joined(separator: ", ")
        case .deleted: "deleted"
        case .error(let error): "error \(error)"
        }
    }

    @Test func queueFormReportsProjectedNamesAndValues() async throws {
        let realm = try Self.realm()
        let jon = try Self.jon(realm)
        let queue = DispatchQueue(label: "ProjectionObserveTests")
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let token = jon.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            continuation.yield(Self.describe(change))
        }
        var received = stream.makeAsyncIterator()
        // The registration happens in the background: write until it reports.
        try realm.write { jon.rootObject.lastName = "Ali" }
        let first = await received.next()
        #expect(first == "Jon: surname Snow→Ali, lastNameCaps SNOW→ALI")
        // A property no projected property reads reports nothing: the next element is the age.
        try realm.write { jon.rootObject.notProjected = 7 }
        try realm.write { jon.age = 31 }
        #expect(await received.next() == "Jon: age 30→31")
        // Through a link: the new projected value, no old one.
        try realm.write { jon.rootObject.address?.city = "Barranquilla" }
        #expect(await received.next() == "Jon: homeCity nil→Barranquilla")
        try realm.write { realm.delete(jon.rootObject) }
        #expect(await received.next() == "deleted")
        token.invalidate()
    }

    @Test func namedKeyPathsCountOnlyTheirProperties() async throws {
        let realm = try Self.realm()
        let jon = try Self.jon(realm)
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        // A projected property's name reports that property alone.
        let byName = jon.observe(keyPaths: ["lastNameCaps"]) { continuation.yield("name " + Self.describe($0)) }
        var received = stream.makeAsyncIterator()
        try realm.write { jon.age = 40 }
        try realm.write { jon.surname = "Targaryen" }
        #expect(await received.next() == "name Jon: lastNameCaps SNOW→TARGARYEN")
        byName.invalidate()

        // A root key path (Realm Swift's spelling) reports every projected property reading it.
        let (rootStream, rootContinuation) = AsyncStream.makeStream(of: String.self)
        let byRootPath = jon.observe(keyPaths: ["lastName"]) { rootContinuation.yield(Self.describe($0)) }
        var rootReceived = rootStream.makeAsyncIterator()
        try realm.write { jon.name = "Aegon" }
        try realm.write { jon.surname = "Snow" }
        let element = await rootReceived.next()
        #expect(element == "Aegon: surname Targaryen→Snow, lastNameCaps TARGARYEN→SNOW")
        byRootPath.invalidate()
    }

    @Test func actorFormWithKeyPathsOfTheProjection() async throws {
        let realm = try Self.realm()
        let jon = try Self.jon(realm)
        let directory = Directory()
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let token = await jon.observe(keyPaths: [\POProjection.age], on: directory) { directory, change in
            if case .change(let person, _) = change { directory.show(person) }
            continuation.yield(Self.describe(change) + " \(directory.names)")
        }
        try realm.write { jon.name = "Aegon" }  // not observed
        try realm.write { jon.age = 19 }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == "Aegon: age 30→19 [\"Aegon\"]")
        token.invalidate()
    }

    @Test func changesStreamDeliversFrozenProjections() async throws {
        let realm = try Self.realm()
        let jon = try Self.jon(realm)
        let changes = jon.changes(keyPaths: [\POProjection.homeCity])
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let reader = Task {
            for await change in changes {
                guard case .change(let person, let properties) = change else { break }
                let consistent = person.isFrozen && person.homeCity == properties.first?.newValue as? String
                continuation.yield("\(person.homeCity ?? "nil") \(properties.map(\.name)) \(consistent)")
            }
        }
        var received = stream.makeAsyncIterator()
        // The stream starts at the version the handle read when `changes` was called.
        try realm.write { jon.age = 1 }  // not observed
        try realm.write { jon.rootObject.address = POAddress(value: ["city": "Dragonstone"]) }
        #expect(await received.next() == "Dragonstone [\"homeCity\"] true")
        try realm.write { jon.rootObject.address?.city = "King's Landing" }
        #expect(await received.next() == "King's Landing [\"homeCity\"] true")
        reader.cancel()
    }

    @Test func freezeAndThaw() async throws {
        let realm = try Self.realm()
        let jon = try Self.jon(realm)
        let frozen = jon.freeze()
        #expect(frozen.isFrozen && !jon.isFrozen && frozen.name == "Jon" && frozen.lastNameCaps == "SNOW")
        #expect(frozen.read { "\($0.name) \($0.age) \($0.homeCity ?? "-")" } == "Jon 30 Winterfell")
        #expect(frozen == jon.freeze(), "two freezes of one version are the same snapshot")

        let directory = Directory()
        await directory.show(frozen)
        #expect(await directory.names == ["Jon"])

        try realm.write { jon.age = 31 }
        #expect(frozen.age == 30 && jon.age == 31, "a frozen projection keeps its version")
        #expect(frozen != jon.freeze())

        let thawed = try #require(frozen.thaw(in: realm))
        #expect(!thawed.isFrozen && thawed.age == 31 && thawed == jon)
        try realm.write { thawed.name = "Aegon" }
        #expect(jon.name == "Aegon")

        let other = try #require(try await frozen.thaw())
        #expect(other.age == 31 && !other.isFrozen)

        try realm.write { realm.delete(jon.rootObject) }
        #expect(frozen.thaw(in: realm) == nil && frozen.name == "Jon")
    }

    @Test func projectedResultsFreezeAndAggregate() throws {
        let realm = try Self.realm()
        let people = realm.objects(POProjection.self)
        #expect(people.realm != nil && !people.isFrozen && !people.isInvalidated)
        #expect(people.min(ofProperty: "age") == 18 && people.max(ofProperty: "age") == 30)
        #expect(people.sum(ofProperty: "age") == 48 && people.average(ofProperty: "age") == 24.0)
        #expect(people.filter("age > 100").max(ofProperty: "age") as Int? == nil)

        let frozen = people.sorted(byKeyPath: "age").freeze()
        try realm.write { realm.add(POPerson(value: ["id": 3, "firstName": "Sansa", "age": 20])) }
        #expect(frozen.isFrozen && frozen.count == 2 && people.count == 3)
        #expect(frozen.map(\.name) == ["Arya", "Jon"] && frozen[0].isFrozen)
        #expect(frozen.where { $0.age > 20 }.map(\.name) == ["Jon"])
        #expect(frozen.filter("firstName BEGINSWITH %@", "A").map(\.lastNameCaps) == ["STARK"])
        #expect(frozen.sorted(byKeyPath: "age", ascending: false).map(\.age) == [30, 18])
        let thawed = frozen.thaw(in: realm)
        #expect(thawed.map(\.name) == ["Arya", "Sansa", "Jon"], "thawing continues the query live")
    }

    @Test func projectedResultsChangesStreamAndThaw() async throws {
        let realm = try Self.realm()
        let adults = realm.objects(POProjection.self).where { $0.age >= 18 }
        let (stream, continuation) = AsyncStream.makeStream(of: FrozenProjectedResults<POProjection>.self)
        let changes = adults.changes
        let reader = Task {
            for await change in changes {
                switch change {
                case .initial(let people), .update(let people, _, _, _): continuation.yield(people)
                case .error: return
                }
            }
        }
        var received = stream.makeAsyncIterator()
        let initial = try #require(await received.next())
        #expect(initial.map(\.name) == ["Jon", "Arya"])
        try realm.write { realm.add(POPerson(value: ["id": 3, "firstName": "Bran", "age": 10])) }  // not an adult
        try realm.write { realm.add(POPerson(value: ["id": 4, "firstName": "Sansa", "age": 20])) }
        let updated = try #require(await received.next())
        #expect(updated.map(\.name) == ["Jon", "Arya", "Sansa"] && initial.count == 2)
        reader.cancel()

        // Thawed on the caller's isolation with the frozen results' configuration.
        try realm.write { realm.delete(realm.objects(POPerson.self).filter("id == 1")) }
        let live = try await updated.thaw()
        #expect(live.map(\.name) == ["Arya", "Sansa"] && !live.isFrozen)
    }

    @Test func projectedResultsObserveOnAQueue() async throws {
        let realm = try Self.realm()
        let queue = DispatchQueue(label: "ProjectionObserveTests.results")
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let token = realm.objects(POProjection.self).sorted(byKeyPath: "age").observe(on: queue) { change in
            switch change {
            case .initial(let people): continuation.yield("initial \(people.map(\.name))")
            case .update(let people, let deletions, let insertions, let modifications):
                continuation.yield("update \(people.map(\.lastNameCaps)) -\(deletions) +\(insertions) ~\(modifications)")
            case .error(let error): continuation.yield("error \(error)")
            }
        }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == "initial [\"Arya\", \"Jon\"]")
        try realm.write { realm.add(POPerson(value: ["id": 3, "firstName": "Sansa", "lastName": "Stark", "age": 20])) }
        #expect(await received.next() == "update [\"STARK\", \"STARK\", \"SNOW\"] -[] +[1] ~[]")
        token.invalidate()
    }

    @Test func projectedResultsChangesWithProjectionKeyPaths() async throws {
        let realm = try Self.realm()
        let people = realm.objects(POProjection.self)
        let directory = Directory()
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let token = await people.observe(keyPaths: [\POProjection.lastNameCaps], on: directory) { _, change in
            switch change {
            case .initial(let people): continuation.yield("initial \(people.count)")
            case .update(let people, _, _, let modifications): continuation.yield("update \(modifications) \(people[1].surname)")
            case .error(let error): continuation.yield("error \(error)")
            }
        }
        var received = stream.makeAsyncIterator()
        #expect(await received.next() == "initial 2")
        let arya = try #require(realm.object(ofType: POPerson.self, forPrimaryKey: 2))
        try realm.write { arya.age = 19 }  // not a modification for `lastName`
        try realm.write { arya.lastName = "Stark of Winterfell" }
        #expect(await received.next() == "update [1] Stark of Winterfell")
        token.invalidate()
    }

    @Test func observingAnUnknownNameTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try ProjectionObserveTests.realm()
            _ = try ProjectionObserveTests.jon(realm).changes(keyPaths: ["nickname"])
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("'nickname' is not a projected property of POProjection"), "\(message)")
        }
    }
}
