import Foundation
import Testing
import RealmActors

final class RCDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<RCPerson>
}

final class RCPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var dogs: List<RCDog>
    @Persisted var favourites: MutableSet<RCDog>
    @Persisted var tags: List<String>
}

/// Generic code over `RealmCollection` and `AnyRealmCollection`, and the collections' `==`.
@Suite struct RealmCollectionTests {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
    }

    /// What generic code over any collection of dogs does: read, query, sort, aggregate.
    static func summary<C: RealmCollection>(_ dogs: C) -> String where C.Element == RCDog {
        let oldest = dogs.sorted(byKeyPath: "age", ascending: false).first?.name ?? "-"
        let young = dogs.filter("age < %@", 5).count
        let total: Int = dogs.sum(ofProperty: "age")
        let names = dogs.map(\.name).joined(separator: ",")
        return "\(dogs.count) [\(names)] oldest \(oldest) young \(young) total \(total) frozen \(dogs.isFrozen) valid \(!dogs.isInvalidated)"
    }

    static func populated() throws -> (Realm, RCPerson) {
        let realm = try realm()
        let person = try realm.write {
            realm.create(RCPerson.self, value: ["id": 1, "dogs": [["id": 1, "name": "Rex", "age": 7], ["id": 2, "name": "Ace", "age": 2]],
                                                "tags": ["a"]])
        }
        try realm.write {
            person.favourites.insert(objectsIn: person.dogs)
            realm.create(RCDog.self, value: ["id": 3, "name": "Max", "age": 4])
        }
        return (realm, person)
    }

    @Test func genericCodeRunsOnEveryCollectionOfObjects() throws {
        let (realm, person) = try Self.populated()
        #expect(Self.summary(realm.objects(RCDog.self)) == "3 [Rex,Ace,Max] oldest Rex young 2 total 13 frozen false valid true")
        #expect(Self.summary(person.dogs) == "2 [Rex,Ace] oldest Rex young 1 total 9 frozen false valid true")
        #expect(Self.summary(person.favourites).hasPrefix("2 ["))
        let rex = try #require(realm.object(ofType: RCDog.self, forPrimaryKey: 1))
        func ownerCount<C: RealmCollection>(_ owners: C) -> Int where C.Element == RCPerson { owners.filter("id > 0").count }
        #expect(ownerCount(rex.owners) == 1)
        #expect(Self.summary(AnyRealmCollection(person.dogs)) == Self.summary(person.dogs))
    }

    @Test func anyRealmCollectionHoldsAnyOfThem() throws {
        let (realm, person) = try Self.populated()
        var shown = AnyRealmCollection(realm.objects(RCDog.self))
        #expect(shown.count == 3 && shown.realm == realm)
        #expect(shown.where { $0.age > 3 }.count == 2)
        shown = AnyRealmCollection(person.dogs)
        #expect(shown.map(\.name) == ["Rex", "Ace"])
        #expect(shown[1].name == "Ace")
        #expect(shown.index(matching: "name == 'Ace'") == 1)
        // Wrapping a wrapper wraps the collection itself.
        #expect(AnyRealmCollection(shown) == shown)
        #expect(AnyRealmCollection(person.dogs) == AnyRealmCollection(person.dogs))
        #expect(AnyRealmCollection(person.dogs) != AnyRealmCollection(realm.objects(RCDog.self)))
        try realm.write { realm.delete(person) }
        #expect(shown.isInvalidated)
    }

    @Test func equalityIsIdentityOfTheCollection() throws {
        let (realm, person) = try Self.populated()
        let dogs = realm.objects(RCDog.self)
        #expect(dogs == realm.objects(RCDog.self))
        #expect(dogs.filter("age > 1") == dogs.filter("age > 1"))
        #expect(dogs.filter("age > 1") != dogs.filter("age > 2"))
        #expect(dogs.sorted(byKeyPath: "age") != dogs)
        let other = try Realm(configuration: realm.configuration)
        #expect(other.objects(RCDog.self) != dogs || other === realm)

        #expect(person.dogs == person.dogs)
        #expect(person.tags == person.tags)
        let samePerson = try #require(realm.object(ofType: RCPerson.self, forPrimaryKey: 1))
        #expect(samePerson.dogs == person.dogs)
        #expect(person.favourites == samePerson.favourites)
        let unmanaged = List<String>()
        #expect(unmanaged == unmanaged && unmanaged != List<String>())
        let rex = try #require(realm.object(ofType: RCDog.self, forPrimaryKey: 1))
        let ace = try #require(realm.object(ofType: RCDog.self, forPrimaryKey: 2))
        #expect(rex.owners == rex.owners && rex.owners != ace.owners)
    }
}
