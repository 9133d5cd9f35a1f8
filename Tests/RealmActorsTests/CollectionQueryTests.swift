import Foundation
import Testing
import RealmActors

final class CQDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<CQOwner>
}

final class CQOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var dogs: List<CQDog>
    @Persisted var favourites: MutableSet<CQDog>
    @Persisted var scores: List<Int>
    @Persisted var weights: MutableSet<Double>
}

/// Realm Swift's collection API on lists, sets and linking objects: filtering, sorting,
/// distinct, aggregates and positions, each equal to the same operation on the objects
/// themselves; and aggregates of collections of values.
@Suite struct CollectionQueryTests {
    static func realm() throws -> (Realm, CQOwner) {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let owner = try realm.write {
            let dogs = (0..<10).map { realm.create(CQDog.self, value: ["id": $0, "name": "dog\($0 % 4)", "age": ($0 * 7) % 10]) }
            let owner = realm.create(CQOwner.self, value: ["id": 1])
            owner.dogs.append(objectsIn: [dogs[5], dogs[2], dogs[8], dogs[2], dogs[1]])
            owner.favourites.insert(objectsIn: [dogs[3], dogs[4], dogs[9]])
            owner.scores.append(objectsIn: [3, 1, 4, 1, 5])
            owner.weights.insert(objectsIn: [2.5, 4.0])
            realm.create(CQOwner.self, value: ["id": 2, "dogs": [dogs[2]]])
            return owner
        }
        return (realm, owner)
    }

    /// Reading the first objects of a filtered collection computes only those, and whatever was
    /// computed first (`first`, a prefix) never stands in for the whole: `count`, iteration and
    /// positions after it still see every match.
    @Test func aPartialReadNeverCutsTheResultsShort() throws {
        let (realm, owner) = try Self.realm()
        let list = owner.dogs.filter("age >= 0")
        _ = list.first
        #expect(list.count == 5, "the list holds 5 dogs, all with age >= 0")
        #expect(Array(list).map(\.id) == [5, 2, 8, 2, 1])
        let table = realm.objects(CQDog.self).filter("age >= 0")
        #expect(Array(table.prefix(3)).map(\.id) == [0, 1, 2])
        #expect(table.count == 10)
        #expect(table[9].id == 9)

        // Many leaves: positions read in a random order, a prefix grown several times, a write
        // in between; every answer equals the brute force's.
        let big = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try big.write { for id in 0..<3_000 { big.create(CQDog.self, value: ["id": id, "age": (id * 37) % 100]) } }
        var random = SystemRandomNumberGenerator()
        for round in 0..<6 {
            let results = big.objects(CQDog.self).filter("age < 30")
            let expected = (0..<3_000).filter { ($0 * 37) % 100 < 30 }
            if round % 2 == 1 { #expect(results.first?.id == expected.first) }
            for _ in 0..<20 {
                let position = Int.random(in: 0..<expected.count, using: &random)
                #expect(results[position].id == expected[position])
            }
            #expect(Array(results.prefix(5)).map(\.id) == Array(expected.prefix(5)))
            #expect(results.count == expected.count)
            #expect(results.map(\.id) == expected)
            #expect(!big.objects(CQDog.self).filter("age < 30").isEmpty)
            #expect(big.objects(CQDog.self).filter("age > 99").isEmpty)
            #expect(big.objects(CQDog.self).filter("age > 98").sorted(byKeyPath: "id").isEmpty == false)
            try big.write { big.create(CQDog.self, value: ["id": 3_000 + round, "age": 99]) }
        }
    }

    @Test func listsSetsAndLinkingObjectsQueryLikeTheirObjects() throws {
        let (realm, owner) = try Self.realm()
        let listed = Array(owner.dogs)
        #expect(owner.dogs.sorted(by: \.age).map(\.id) == listed.enumerated().sorted { ($0.element.age, $0.offset) < ($1.element.age, $1.offset) }.map(\.element.id))
        #expect(owner.dogs.sorted(by: [SortDescriptor(keyPath: "name", ascending: false)]).map(\.name) == listed.map(\.name).sorted(by: >))
        #expect(owner.dogs.distinct(by: ["id"]).map(\.id) == [5, 2, 8, 1], "the first of each, in list order")
        #expect(owner.dogs.distinct(by: [\CQDog.id]).count == 4)
        #expect(owner.dogs.max(ofProperty: "age") as Int? == listed.map(\.age).max())
        #expect(owner.dogs.sum(of: \.age) == listed.reduce(0) { $0 + $1.age })
        #expect(owner.dogs.average(ofProperty: "age") as Double? == Double(listed.reduce(0) { $0 + $1.age }) / Double(listed.count))
        #expect(owner.dogs.index(matching: "id == %@", 8) == 2)
        #expect(owner.dogs.index(matching: { $0.id == 1 }) == 4)
        #expect(try owner.dogs.index(validating: "id == 2") == 1)
        #expect(owner.dogs.objects(at: [0, 4]).map(\.id) == [5, 1])
        #expect(throws: Realm.Error.self) { try owner.dogs.filter(validating: "nosuch == 1") }

        #expect(Set(owner.favourites.filter("age > 5").map(\.id)) == Set([3, 4, 9].filter { ($0 * 7) % 10 > 5 }))
        #expect(owner.favourites.where { $0.id >= 4 }.count == 2)
        #expect(owner.favourites.min(of: \.age) == [3, 4, 9].map { ($0 * 7) % 10 }.min())

        let two = try #require(realm.object(ofType: CQDog.self, forPrimaryKey: 2))
        // Owner 1's list holds dog 2 twice: a backlink per link, as in Realm.
        #expect(two.owners.count == 3 && two.owners.sum(of: \.id) == 4)
        #expect(two.owners.sorted(by: \.id, ascending: false).map(\.id) == [2, 1, 1])
    }

    @Test func collectionsOfValuesAggregate() throws {
        let (_, owner) = try Self.realm()
        #expect(owner.scores.sum() == 14)
        #expect(owner.scores.average() as Double? == 14.0 / 5)
        #expect(owner.scores.min() == 1 && owner.scores.max() == 5)
        #expect(owner.scores.sorted(ascending: false) == [5, 4, 3, 1, 1])
        #expect(owner.scores.distinct() == [3, 1, 4, 5])
        #expect(owner.weights.sum() == 6.5)
        #expect(owner.weights.average() as Double? == 3.25)
        let empty = List<Int>()
        #expect(empty.sum() == 0 && empty.average() as Double? == nil)
    }

    @Test func frozenAndInvalidatedCollectionsSayWhatTheyAre() throws {
        let (realm, owner) = try Self.realm()
        #expect(!owner.dogs.isFrozen && !realm.objects(CQDog.self).isFrozen)
        let frozen = realm.freeze().realm()
        let frozenOwner = try #require(frozen.object(ofType: CQOwner.self, forPrimaryKey: 1))
        #expect(frozenOwner.dogs.isFrozen && frozenOwner.favourites.isFrozen && frozen.objects(CQDog.self).isFrozen)
        #expect(!List<Int>().isFrozen)
        let dogs = realm.objects(CQDog.self)
        #expect(!dogs.isInvalidated)
        realm.invalidate()
        #expect(dogs.isInvalidated)
    }
}
