import Foundation
import Testing
import RealmActors

enum TSStatus: Int, PersistableEnum {
    case open = 1, done = 2, archived = 3
}

enum TSKind: String, PersistableEnum {
    case apple, avocado, banana
}

final class TSDog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var weight = 0.0
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<TSOwner>
}

final class TSOwner: Object {
    @Persisted var name = ""
    @Persisted var nickname: String?
    @Persisted var age = 0
    @Persisted var minAge = 0
    @Persisted var rank: Int?
    @Persisted var dogs: List<TSDog>
    @Persisted var prices: Map<String, Int>
    @Persisted var status = TSStatus.open
    @Persisted var kind: TSKind?
}

/// Realm Swift's type-safe `Query` forms, each checked against its result and against the Realm
/// Query Language string it stands for.
@Suite struct TypeSafeQueryTests {
    /// Ann (30, dogs Rex 7 and Max 6, prices eur 3 usd 5, open, apple), Bob (20, dogs Rio 2 and
    /// Ace 1, price usd 2, done, banana), Cy (45, no dogs, no prices, archived, no kind).
    static func owners() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write {
            func dog(_ name: String, _ age: Int, _ weight: Double) -> TSDog {
                realm.create(TSDog.self, value: ["name": name, "age": age, "weight": weight])
            }
            let ann = realm.create(TSOwner.self, value: ["name": "Ann", "nickname": "An", "age": 30, "minAge": 30, "rank": 1,
                                                         "dogs": [dog("Rex", 7, 10), dog("Max", 6, 5.5)], "status": 1, "kind": "apple"])
            ann.prices["eur"] = 3
            ann.prices["usd"] = 5
            let bob = realm.create(TSOwner.self, value: ["name": "Bob", "nickname": "Bobby", "age": 20, "minAge": 25,
                                                         "dogs": [dog("Rio", 2, 3), dog("Ace", 1, 2)], "status": 2, "kind": "banana"])
            bob.prices["usd"] = 2
            realm.create(TSOwner.self, value: ["name": "Cy", "age": 45, "minAge": 40, "rank": 3, "status": 3])
        }
        return realm
    }

    /// The names `query` selects, after checking that `predicate` selects the same.
    static func names(_ realm: Realm, _ query: (Query<TSOwner>) -> Query<Bool>, sameAs predicate: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let typed = realm.objects(TSOwner.self).where(query).map(\.name)
        let parsed = try realm.objects(TSOwner.self).filter(validating: predicate).map(\.name)
        #expect(typed == parsed, "where { } and '\(predicate)' differ", sourceLocation: sourceLocation)
        return typed
    }

    @Test func notEqualsWithOptions() throws {
        let realm = try Self.owners()
        #expect(try Self.names(realm, { $0.name.notEquals("ann", options: .caseInsensitive) }, sameAs: "name !=[c] 'ann'") == ["Bob", "Cy"])
        #expect(try Self.names(realm, { $0.name.notEquals("ann") }, sameAs: "name != 'ann'") == ["Ann", "Bob", "Cy"])
        #expect(try Self.names(realm, { $0.nickname.notEquals("AN", options: [.caseInsensitive, .diacriticInsensitive]) },
                               sameAs: "nickname !=[cd] 'AN'") == ["Bob", "Cy"])
    }

    @Test func stringOperatorsAgainstAnotherProperty() throws {
        let realm = try Self.owners()
        #expect(try Self.names(realm, { $0.name.starts(with: $0.nickname) }, sameAs: "name BEGINSWITH nickname") == ["Ann", "Cy"])
        #expect(try Self.names(realm, { $0.nickname.contains($0.name) }, sameAs: "nickname CONTAINS name") == ["Bob"])
        #expect(try Self.names(realm, { $0.nickname.ends(with: $0.name, options: .caseInsensitive) },
                               sameAs: "nickname ENDSWITH[c] name") == [])
        #expect(try Self.names(realm, { $0.nickname.equals($0.name) }, sameAs: "nickname == name") == [])
        #expect(try Self.names(realm, { $0.nickname.notEquals($0.name) }, sameAs: "nickname != name") == ["Ann", "Bob", "Cy"])
    }

    @Test func ranges() throws {
        let realm = try Self.owners()
        #expect(try Self.names(realm, { $0.age.contains(20..<30) }, sameAs: "age >= 20 AND age < 30") == ["Bob"])
        #expect(try Self.names(realm, { $0.age.contains(20...30) }, sameAs: "age BETWEEN {20, 30}") == ["Ann", "Bob"])
        #expect(try Self.names(realm, { $0.rank.contains(1..<3) }, sameAs: "rank >= 1 AND rank < 3") == ["Ann"])
        #expect(try Self.names(realm, { $0.rank.contains(1...3) }, sameAs: "rank BETWEEN {1, 3}") == ["Ann", "Cy"])
    }

    @Test func comparingTwoProperties() throws {
        let realm = try Self.owners()
        #expect(try Self.names(realm, { $0.age <= $0.minAge }, sameAs: "age <= minAge") == ["Ann", "Bob"])
        #expect(try Self.names(realm, { $0.age >= $0.minAge }, sameAs: "age >= minAge") == ["Ann", "Cy"])
        #expect(try Self.names(realm, { $0.age < $0.minAge }, sameAs: "age < minAge") == ["Bob"])
        #expect(try Self.names(realm, { $0.age == $0.minAge }, sameAs: "age == minAge") == ["Ann"])
        #expect(try Self.names(realm, { $0.age != $0.minAge }, sameAs: "age != minAge") == ["Bob", "Cy"])
    }

    @Test func aggregatesThroughObjectCollections() throws {
        let realm = try Self.owners()
        #expect(try Self.names(realm, { $0.dogs.age.avg > 3 }, sameAs: "dogs.@avg.age > 3") == ["Ann"])
        #expect(try Self.names(realm, { $0.dogs.age.min == 1 }, sameAs: "dogs.@min.age == 1") == ["Bob"])
        #expect(try Self.names(realm, { $0.dogs.age.max >= 7 }, sameAs: "dogs.@max.age >= 7") == ["Ann"])
        #expect(try Self.names(realm, { $0.dogs.age.sum == 3 }, sameAs: "dogs.@sum.age == 3") == ["Bob"])
        #expect(try Self.names(realm, { $0.dogs.age.sum == 0 }, sameAs: "dogs.@sum.age == 0") == ["Cy"], "an empty list sums to 0")
        #expect(try Self.names(realm, { $0.dogs.weight.sum > 10.0 }, sameAs: "dogs.@sum.weight > 10") == ["Ann"])
        #expect(try Self.names(realm, { $0.dogs.count == 0 }, sameAs: "dogs.@count == 0") == ["Cy"])
        #expect(try Self.names(realm, { $0.dogs.age.avg > 1 && $0.dogs.count == 2 }, sameAs: "dogs.@avg.age > 1 AND dogs.@count == 2")
                == ["Ann", "Bob"])
    }

    @Test func subqueryCounts() throws {
        let realm = try Self.owners()
        #expect(try Self.names(realm, { ($0.dogs.age > 5).count > 1 }, sameAs: "SUBQUERY(dogs, $d, $d.age > 5).@count > 1") == ["Ann"])
        #expect(try Self.names(realm, { ($0.dogs.age > 1 && $0.dogs.name.starts(with: "A")).count >= 1 },
                               sameAs: "SUBQUERY(dogs, $d, $d.age > 1 AND $d.name BEGINSWITH 'A').@count >= 1") == [],
                "one dog must satisfy the whole condition")
        #expect(try Self.names(realm, { $0.dogs.age > 1 && $0.dogs.name.starts(with: "A") },
                               sameAs: "dogs.age > 1 AND dogs.name BEGINSWITH 'A'") == ["Bob"], "without a subquery: any dog per part")
        #expect(try Self.names(realm, { ($0.dogs.age < 3).count == 0 }, sameAs: "SUBQUERY(dogs, $d, $d.age < 3).@count == 0")
                == ["Ann", "Cy"])
        // Over linking objects.
        let dogs = realm.objects(TSDog.self).where { ($0.owners.age > 25).count == 1 }.map(\.name)
        #expect(dogs == ["Rex", "Max"])
    }

    @Test func maps() throws {
        let realm = try Self.owners()
        #expect(try Self.names(realm, { $0.prices["eur"] == 3 }, sameAs: "prices['eur'] == 3") == ["Ann"])
        #expect(try Self.names(realm, { $0.prices["usd"] > 1 }, sameAs: "prices['usd'] > 1") == ["Ann", "Bob"])
        #expect(try Self.names(realm, { $0.prices.keys == "usd" }, sameAs: "prices.@keys == 'usd'") == ["Ann", "Bob"])
        #expect(try Self.names(realm, { $0.prices.keys.contains("e") }, sameAs: "prices.@keys CONTAINS 'e'") == ["Ann"])
        #expect(try Self.names(realm, { $0.prices.keys.starts(with: "u") }, sameAs: "prices.@keys BEGINSWITH 'u'") == ["Ann", "Bob"])
        #expect(try Self.names(realm, { $0.prices.values > 4 }, sameAs: "prices.@values > 4") == ["Ann"])
        #expect(try Self.names(realm, { $0.prices.values < 3 }, sameAs: "prices.@values < 3") == ["Bob"])
        #expect(try Self.names(realm, { $0.prices.contains(2) }, sameAs: "2 IN prices") == ["Bob"])
    }

    @Test func enumRawAndPersistableValues() throws {
        let realm = try Self.owners()
        #expect(try Self.names(realm, { $0.status.rawValue == 2 }, sameAs: "status == 2") == ["Bob"])
        #expect(try Self.names(realm, { $0.status.rawValue > 1 }, sameAs: "status > 1") == ["Bob", "Cy"])
        #expect(try Self.names(realm, { $0.status.persistableValue.in([1, 3]) }, sameAs: "status IN {1, 3}") == ["Ann", "Cy"])
        #expect(try Self.names(realm, { $0.status == .done }, sameAs: "status == 2") == ["Bob"])
        #expect(try Self.names(realm, { $0.kind.rawValue.starts(with: "a") }, sameAs: "kind BEGINSWITH 'a'") == ["Ann"])
        #expect(try Self.names(realm, { $0.kind.rawValue == nil }, sameAs: "kind == nil") == ["Cy"])
        #expect(try Self.names(realm, { $0.kind.persistableValue == "banana" }, sameAs: "kind == 'banana'") == ["Bob"])
    }
}
