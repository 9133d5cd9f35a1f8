import Foundation
import Testing
import RealmActors

final class MQDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "pack") var leaders: LinkingObjects<MQPerson>
}

final class MQPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var pets: Map<String, MQDog?>
    @Persisted var scores: Map<String, Int>
    @Persisted var pack: MutableSet<MQDog>
    @Persisted var tags: MutableSet<String>
}

/// Realm Swift's `Map` API beyond a dictionary, and freezing sets and linking objects.
@Suite struct MapQueryTests {
    static func populated() throws -> (Realm, MQPerson) {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let person = try realm.write {
            let person = realm.create(MQPerson.self, value: ["id": 1, "scores": ["b": 2, "a": 5, "c": 1], "tags": ["x", "y"]])
            for (key, id, age) in [("rex", 1, 7), ("ace", 2, 2), ("max", 3, 4)] {
                let dog = realm.create(MQDog.self, value: ["id": id, "name": key, "age": age])
                person.pets[key] = dog
                person.pack.insert(dog)
            }
            person.pets.updateValue(nil, forKey: "none")
            return person
        }
        return (realm, person)
    }

    @Test func mapsOfObjectsQuerySortAndAggregate() throws {
        let (_, person) = try Self.populated()
        #expect(person.pets.where { $0.age > 3 }.map(\.name) == ["max", "rex"], "key order, nil values left out")
        #expect(person.pets.filter("age < %@", 5).map(\.name) == ["ace", "max"])
        #expect(throws: Realm.Error.self) { try person.pets.filter(validating: "nosuch > 1") }
        #expect(person.pets.sorted(byKeyPath: "age").map(\.name) == ["ace", "max", "rex"])
        #expect(person.pets.sorted(by: [SortDescriptor(keyPath: "name", ascending: false)]).map(\.name) == ["rex", "max", "ace"])
        #expect(person.pets.max(ofProperty: "age") as Int? == 7)
        #expect(person.pets.min(ofProperty: "age") as Int? == 2)
        #expect(person.pets.sum(ofProperty: "age") as Int == 13)
        #expect(person.pets.average(ofProperty: "age") as Double? == 13.0 / 3)
    }

    @Test func mapsOfValuesAggregateSortMergeAndFreeze() throws {
        let (realm, person) = try Self.populated()
        #expect(person.scores.sorted() == [1, 2, 5] && person.scores.sorted(ascending: false) == [5, 2, 1])
        #expect(person.scores.min() == 1 && person.scores.max() == 5 && person.scores.sum() == 8)
        #expect(person.scores.average() as Double? == 8.0 / 3)
        #expect(person.scores.asKeyValueSequence().map(\.key) == ["a", "b", "c"])
        try realm.write { person.scores.merge([(key: "a", value: 10), (key: "d", value: 4)]) { $0 + $1 } }
        #expect(person.scores.freeze() == ["a": 15, "b": 2, "c": 1, "d": 4])
        let extra = Map<String, Int>()
        extra["c"] = 100
        try realm.write { person.scores.merge(extra) { old, _ in old } }
        #expect(person.scores["c"] == 1)
    }

    @Test func setsAndLinkingObjectsFreeze() throws {
        let (realm, person) = try Self.populated()
        let frozenPack = person.pack.freeze()
        #expect(frozenPack.count == 3)
        #expect(person.tags.freeze() == ["x", "y"])
        let rex = try #require(realm.object(ofType: MQDog.self, forPrimaryKey: 1))
        let leaders = rex.leaders.freeze()
        try realm.write { person.pack.removeAll() }
        #expect(frozenPack.count == 3 && leaders.count == 1, "snapshots do not follow")
        #expect(rex.leaders.isEmpty && realm.thaw(leaders).isEmpty, "thawed: the same query, live")
    }
}
