import Foundation
import Testing
import RealmActors

final class QLItem: Object {
    @Persisted var name = ""
    @Persisted var price: Decimal128 = 0
    @Persisted var weight = 0.0
    @Persisted var grams: Float = 0
    @Persisted var note: String?
    @Persisted var blob: Data?
    @Persisted(originProperty: "items") var owners: LinkingObjects<QLCart>
}

final class QLCart: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var created = Date(timeIntervalSince1970: 0)
    @Persisted var items: List<QLItem>
    @Persisted var favorite: QLItem?
    @Persisted var scores: List<Int>
    @Persisted var stock: Map<String, Int>
}

/// The Realm Query Language as realm-core defines it (its test/test_parser.cpp), theme by theme,
/// through `filter(validating:)`.
@Suite struct QueryLanguageTests {
    /// Items milk (1.5), bread (3), cheese (10.25); carts Ann (30: milk, bread, milk; favorite
    /// milk; scores 1 2 3), Bob (20: bread, cheese; no favorite; score 5), Cy (40: nothing;
    /// favorite cheese; no scores).
    static func shop() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write {
            let milk = realm.create(QLItem.self, value: ["name": "milk", "price": try Decimal128(string: "1.50"), "weight": 1.5,
                                                         "grams": Float(2.5)])
            let bread = realm.create(QLItem.self, value: ["name": "bread", "price": Decimal128(3), "weight": 3.0, "grams": Float(1),
                                                          "note": "fresh", "blob": Data("fork".utf8)])
            let cheese = realm.create(QLItem.self, value: ["name": "cheese", "price": try Decimal128(string: "10.25"),
                                                           "weight": Double.infinity, "grams": Float.infinity,
                                                           "note": "", "blob": Data("Knife".utf8)])
            realm.create(QLCart.self, value: ["name": "Ann", "age": 30, "items": [milk, bread, milk], "favorite": milk,
                                              "scores": [1, 2, 3], "created": Date(timeIntervalSince1970: 100)])
            realm.create(QLCart.self, value: ["name": "Bob", "age": 20, "items": [bread, cheese], "scores": [5]])
            realm.create(QLCart.self, value: ["name": "Cy", "age": 40, "favorite": cheese])
            let carts = realm.objects(QLCart.self)
            carts[0].stock["apples"] = 3
            carts[0].stock["pears.ripe"] = 7
            carts[1].stock["apples"] = 9
        }
        return realm
    }

    static func items(_ realm: Realm, _ predicate: String, _ arguments: Any...) throws -> [String] {
        try realm.objects(QLItem.self).filter(validating: predicate, argumentArray: arguments).map(\.name)
    }

    static func carts(_ realm: Realm, _ predicate: String, _ arguments: Any...) throws -> [String] {
        try realm.objects(QLCart.self).filter(validating: predicate, argumentArray: arguments).map(\.name)
    }

    @Test func decimalsCompareWithNumbers() throws {
        let realm = try Self.shop()
        #expect(try Self.items(realm, "price > 3") == ["cheese"])
        #expect(try Self.items(realm, "price == 1.5") == ["milk"], "1.50 == 1.5: by value, not by digits")
        #expect(try Self.items(realm, "price == 3") == ["bread"])
        #expect(try Self.items(realm, "price >= 3.0") == ["bread", "cheese"])
        #expect(try Self.items(realm, "price < 2") == ["milk"])
        #expect(try Self.items(realm, "price != 3") == ["milk", "cheese"])
        #expect(try Self.items(realm, "price BETWEEN {1, 3}") == ["milk", "bread"])
        #expect(try Self.items(realm, "price == %@", try Decimal128(string: "3.000")) == ["bread"])
        #expect(try Self.items(realm, "price IN {3, 10.25}") == ["bread", "cheese"])
        #expect(try Self.items(realm, "price == weight") == ["milk", "bread"], "decimal against double property")
        #expect(try Self.items(realm, "price <= inf") == ["milk", "bread", "cheese"])
    }

    @Test func decimalAggregates() throws {
        let realm = try Self.shop()
        #expect(try Self.carts(realm, "items.@sum.price > 10") == ["Bob"])
        #expect(try Self.carts(realm, "items.@sum.price == 6") == ["Ann"])
        #expect(try Self.carts(realm, "items.@avg.price > 5") == ["Bob"])
        #expect(try Self.carts(realm, "items.@max.price == 10.25") == ["Bob"])
        #expect(try Self.carts(realm, "items.@min.price < 2") == ["Ann"])
        #expect(try Self.carts(realm, "ANY items.price > 10") == ["Bob"])
        #expect(try Self.carts(realm, "ALL items.price < 5") == ["Ann", "Cy"], "ALL over an empty list holds")
    }

    @Test func linkingObjectsCountEveryLink() throws {
        let realm = try Self.shop()
        // Ann's list holds milk twice: two backlinks, as in Realm.
        #expect(try Self.items(realm, "owners.@count == 2") == ["milk", "bread"])
        #expect(try Self.items(realm, "owners.@count == 1") == ["cheese"])
        #expect(try Self.items(realm, "owners.@count > 2") == [])
    }

    @Test func subqueryOverLinkingObjects() throws {
        let realm = try Self.shop()
        #expect(try Self.items(realm, "SUBQUERY(owners, $o, $o.age > 25).@count > 0") == ["milk", "bread"])
        #expect(try Self.items(realm, "SUBQUERY(owners, $o, $o.age < 25 AND $o.name == 'Bob').@count == 1") == ["bread", "cheese"])
        #expect(try Self.carts(realm, "SUBQUERY(items, $i, $i.owners.@count == 2).@count == 3") == ["Ann"])
    }

    @Test func nullNeedlesOnStringsAndData() throws {
        let realm = try Self.shop()
        // A nil needle is the empty string; only nil is LIKE nil (realm-core Parser_StringOperations).
        #expect(try Self.items(realm, "note CONTAINS NULL") == ["milk", "bread", "cheese"])
        #expect(try Self.items(realm, "note BEGINSWITH NULL") == ["milk", "bread", "cheese"])
        #expect(try Self.items(realm, "note ENDSWITH[c] nil") == ["milk", "bread", "cheese"])
        #expect(try Self.items(realm, "note LIKE NULL") == ["milk"])
        #expect(try Self.items(realm, "note CONTAINS %@", NSNull()) == ["milk", "bread", "cheese"])
        // Data (Parser_BinaryData): the same, except that nil data is not CONTAINS[c] nil.
        #expect(try Self.items(realm, "blob CONTAINS NULL") == ["milk", "bread", "cheese"])
        #expect(try Self.items(realm, "blob CONTAINS[c] NULL") == ["bread", "cheese"])
        #expect(try Self.items(realm, "blob ENDSWITH NULL") == ["milk", "bread", "cheese"])
        #expect(try Self.items(realm, "blob LIKE NULL") == ["milk"])
        #expect(try Self.items(realm, "note CONTAINS 'res'") == ["bread"], "a real needle still needs a value")
    }

    @Test func countOfAToOneLink() throws {
        let realm = try Self.shop()
        #expect(try Self.carts(realm, "favorite.@count == 1") == ["Ann", "Cy"])
        #expect(try Self.carts(realm, "favorite.@count == 0") == ["Bob"])
        #expect(try Self.carts(realm, "age > favorite.@count") == ["Ann", "Bob", "Cy"])
    }

    @Test func nonOptionalPropertiesAgainstNil() throws {
        let realm = try Self.shop()
        // Valid and never equal (realm-core: "ints == NULL" matches nothing).
        #expect(try Self.carts(realm, "age == nil") == [])
        #expect(try Self.carts(realm, "age != NULL") == ["Ann", "Bob", "Cy"])
        #expect(try Self.carts(realm, "name == nil") == [])
        #expect(try Self.carts(realm, "created == nil") == [])
        #expect(try Self.items(realm, "price == nil") == [])
        // Through a nil link the value is nil (realm-core: "buddy.age == NULL" matches null links).
        #expect(try Self.carts(realm, "favorite.price == nil") == ["Bob"])
    }

    @Test func infinityAndNaN() throws {
        let realm = try Self.shop()
        #expect(try Self.items(realm, "weight == inf") == ["cheese"])
        #expect(try Self.items(realm, "weight < Infinity") == ["milk", "bread"])
        #expect(try Self.items(realm, "weight > -INF") == ["milk", "bread", "cheese"])
        #expect(try Self.items(realm, "weight == +infinity") == ["cheese"])
        #expect(try Self.items(realm, "weight == NaN") == [])
        #expect(try Self.items(realm, "weight != nan") == ["milk", "bread", "cheese"])
        #expect(try Self.items(realm, "weight == -NaN") == [])
        #expect(try Self.items(realm, "grams < +inf") == ["milk", "bread"])
        #expect(try Self.items(realm, "grams >= inf") == ["cheese"])
        #expect(try Self.items(realm, "price == infinity") == [])
        #expect(try Self.items(realm, "price > -inf") == ["milk", "bread", "cheese"])
        // Integers compare with them as numbers, as with a Double argument (realm-core rejects the
        // literal for an int property; RealmActors keeps literal and argument alike).
        #expect(try Self.carts(realm, "age < inf") == ["Ann", "Bob", "Cy"])
        #expect(try Self.carts(realm, "age == NaN") == [])
        #expect(throws: Realm.Error.self) { try Self.carts(realm, "name == nan") }
    }

    @Test func listLiteralsWithModifiers() throws {
        let realm = try Self.shop()
        #expect(try Self.carts(realm, "ANY {20, 21} == age") == ["Bob"])
        #expect(try Self.carts(realm, "age IN {20, 40}") == ["Bob", "Cy"])
        #expect(try Self.carts(realm, "ALL {'Ann', 'Bob'} == name") == [])
        #expect(try Self.carts(realm, "NONE {'Ann', 'Bob'} == name") == ["Cy"])
        #expect(try Self.carts(realm, "age == ANY {30, 40}") == ["Ann", "Cy"])
        #expect(try Self.carts(realm, "age != ALL {30, 40}") == ["Bob"])
        #expect(try Self.carts(realm, "age == NONE {30, 40}") == ["Bob"])
        #expect(try Self.carts(realm, "age == ALL {}") == ["Ann", "Bob", "Cy"], "ALL over nothing holds")
        #expect(try Self.carts(realm, "age IN ALL {30}") == ["Ann"])
        #expect(try Self.carts(realm, "ANY {25, 35} < age") == ["Ann", "Cy"], "turned around: 25 < age or 35 < age")
        #expect(try Self.carts(realm, "name BEGINSWITH ANY {'A', 'C'}") == ["Ann", "Cy"])
        // Lists against lists: the list's modifier is the outer one.
        #expect(try Self.carts(realm, "ALL {1, 2} IN scores") == ["Ann"])
        #expect(try Self.carts(realm, "ANY {5, 9} IN scores") == ["Bob"])
        #expect(try Self.carts(realm, "NONE {1, 5} IN scores") == ["Cy"])
        #expect(try Self.carts(realm, "ANY scores == ANY {3, 5}") == ["Ann", "Bob"])
        #expect(try Self.carts(realm, "ALL scores > ANY {1, 4}") == ["Bob", "Cy"])
        #expect(try Self.carts(realm, "items.name == ANY {'cheese'}") == ["Bob"])
        // Neither side quantified: ordered list matching.
        #expect(try Self.carts(realm, "scores == {1, 2, 3}") == ["Ann"])
        #expect(try Self.carts(realm, "scores == {3, 2, 1}") == [])
        #expect(try Self.carts(realm, "{1, 2, 3} == scores") == ["Ann"])
        #expect(try Self.carts(realm, "scores != {1, 2, 3}") == ["Bob", "Cy"])
        #expect(try Self.carts(realm, "items.name == {'bread', 'cheese'}") == ["Bob"])
    }

    @Test func listSubscripts() throws {
        let realm = try Self.shop()
        #expect(try Self.carts(realm, "scores[FIRST] == 1") == ["Ann"])
        #expect(try Self.carts(realm, "scores[first] > 1") == ["Bob"])
        #expect(try Self.carts(realm, "scores[LAST] == 3") == ["Ann"])
        #expect(try Self.carts(realm, "scores[1] == 2") == ["Ann"])
        #expect(try Self.carts(realm, "scores[5] == 2") == [], "out of range: no value")
        #expect(try Self.carts(realm, "scores[SIZE] == 3") == ["Ann"])
        #expect(try Self.carts(realm, "scores[*] == 5") == ["Bob"])
        #expect(try Self.carts(realm, "items[FIRST].name == 'milk'") == ["Ann"])
        #expect(try Self.carts(realm, "items[LAST].name == 'milk'") == ["Ann"])
        #expect(try Self.carts(realm, "items[1].price > 5") == ["Bob"])
        #expect(try Self.carts(realm, "items[SIZE] == 0") == ["Cy"])
        #expect(try Self.carts(realm, "items[FIRST].owners.@count == 2") == ["Ann", "Bob"])
        #expect(throws: Realm.Error.self) { try Self.carts(realm, "name[FIRST] == 'A'") }
        #expect(throws: Realm.Error.self) { try Self.carts(realm, "favorite[0].name == 'milk'") }
        #expect(throws: Realm.Error.self) { try Self.carts(realm, "stock[FIRST] == 3") }
        #expect(throws: Realm.Error.self) { try Self.carts(realm, "scores[-1] == 3") }
    }

    @Test func mapKeysAndValues() throws {
        let realm = try Self.shop()
        #expect(try Self.carts(realm, "stock['apples'] == 3") == ["Ann"])
        #expect(try Self.carts(realm, "stock['pears.ripe'] > 5") == ["Ann"], "a key with a dot")
        #expect(try Self.carts(realm, "stock['plums'] == nil") == ["Ann", "Bob", "Cy"], "a missing key: nil")
        #expect(try Self.carts(realm, "stock.@keys == 'apples'") == ["Ann", "Bob"])
        #expect(try Self.carts(realm, "stock.@keys BEGINSWITH 'pe'") == ["Ann"])
        #expect(try Self.carts(realm, "stock.@values > 8") == ["Bob"])
        #expect(try Self.carts(realm, "ALL stock.@values < 8") == ["Ann", "Cy"])
        #expect(try Self.carts(realm, "stock.@count == 2") == ["Ann"])
    }

    @Test func arrayArguments() throws {
        let realm = try Self.shop()
        #expect(try Self.carts(realm, "name IN %@", ["Ann", "Cy"]) == ["Ann", "Cy"])
        #expect(try Self.carts(realm, "age IN %@", [20, 99]) == ["Bob"])
        #expect(try Self.carts(realm, "age IN $0", [Int]()) == [])
        #expect(try Self.carts(realm, "age == ANY %@", [30, 40]) == ["Ann", "Cy"])
        #expect(try Self.carts(realm, "ANY scores IN %@", Set([2, 9])) == ["Ann"])
        #expect(try Self.items(realm, "price IN %@", [Decimal128(3), try Decimal128(string: "10.250")]) == ["bread", "cheese"])
    }

    @Test(arguments: [
        ("created == T1:-1", "same sign"),
        ("created == T-1:1", "same sign"),
        ("created == T1:1000000000", "Invalid timestamp"),
        ("created == 2020-02-30@00:00:00", "in range"),
        ("created == 2020-01-01@25:00:00", "in range"),
        ("created == 1970-1-1@0:0:1:-1", "in range"),
        ("name == '\\a'", "Invalid escape"),
        ("name == 'a\\q'", "Invalid escape"),
        ("name == '\\u12G4'", "\\u escape"),
        ("items == NULL", "Cannot compare linklist ('items') with NULL"),
        ("items != nil", "Cannot compare linklist"),
        ("ANY favorite.name == 'milk'", "The keypath following 'ANY' must contain a list"),
        ("ALL age IN {1, 2}", "The keypath following 'ALL' must contain a list"),
        ("NONE name == 'Ann'", "The keypath following 'NONE' must contain a list"),
        ("ANY 'milk' == favorite.name", "must contain a list"),
        ("ANY 5 IN scores", "must be followed by a key path"),
        ("name == -inf", "Cannot compare 'name'"),
    ] as [(String, String)])
    func rejected(predicate: String, message: String) throws {
        let realm = try Self.shop()
        do {
            _ = try realm.objects(QLCart.self).filter(validating: predicate)
            Issue.record("'\(predicate)' was accepted")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func linkingObjectsAgainstNilAreRejected() throws {
        let realm = try Self.shop()
        #expect(throws: Realm.Error.self) { try Self.items(realm, "owners == NULL") }
        #expect(throws: Realm.Error.self) { try Self.items(realm, "owners != nil") }
    }

    @Test func wellFormedLiteralsStillParse() throws {
        let realm = try Self.shop()
        #expect(try Self.carts(realm, "created == T100:0") == ["Ann"])
        #expect(try Self.carts(realm, "created > T-1:-1") == ["Ann", "Bob", "Cy"])
        #expect(try Self.carts(realm, "created == 1970-01-01@00:01:40") == ["Ann"])
        #expect(try Self.carts(realm, "created == 1970-01-01T00:01:40:0") == ["Ann"])
        #expect(try Self.carts(realm, "name == 'A\\u006en'") == ["Ann"])
        #expect(try Self.carts(realm, "name != '\\\"\\'\\/\\\\\\b\\f\\n\\r\\t'") == ["Ann", "Bob", "Cy"])
    }
}
