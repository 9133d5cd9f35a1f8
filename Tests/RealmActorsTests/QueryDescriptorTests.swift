import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class DescriptorPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

/// Realm Query Language's descriptors after a predicate — `SORT(…)`, `DISTINCT(…)`, `LIMIT(n)` —
/// applied in the order written, as realm-core's `DescriptorOrdering` applies them; and
/// `sorted(by:)`/`distinct(by:)` adding to the same ordering.
@Suite struct QueryDescriptorTests {
    static func realm(_ people: [(String, Int)]) throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString, objectTypes: [DescriptorPerson.self]))
        try realm.write {
            for (id, (name, age)) in people.enumerated() {
                realm.create(DescriptorPerson.self, value: ["id": id, "name": name, "age": age])
            }
        }
        return realm
    }

    static func names(_ results: Results<DescriptorPerson>) -> [String] { results.map(\.name) }

    /// realm-core's `Parser_Limit` cases, on its three people.
    @Test func realmCoreLimitCases() throws {
        let realm = try Self.realm([("Adam", 28), ("Frank", 30), ("Ben", 28)])
        let people = realm.objects(DescriptorPerson.self)
        func names(_ predicate: String) -> [String] { Self.names(people.filter(predicate)) }
        #expect(names("TRUEPREDICATE LIMIT(0)") == [])
        #expect(names("TRUEPREDICATE LIMIT(2)") == ["Adam", "Frank"])
        #expect(names("TRUEPREDICATE LIMIT(4)").count == 3)
        #expect(names("TRUEPREDICATE SORT(name ASC) LIMIT(2)") == ["Adam", "Ben"])
        #expect(names("TRUEPREDICATE SORT(name ASC) DISTINCT(age) LIMIT(0)") == [])
        #expect(names("TRUEPREDICATE SORT(name ASC) DISTINCT(age) LIMIT(3)") == ["Adam", "Frank"])
        #expect(names("age < 30 SORT(name ASC) DISTINCT(age) LIMIT(2)") == ["Adam"])
        #expect(names("age < 30 && name == 'Adam' LIMIT(1)") == ["Adam"])
        #expect(names("TRUEPREDICATE LIMIT(3) LIMIT(2) LIMIT(1) LIMIT(10)").count == 1)
        #expect(names("age > 0 LIMIT(2) SORT(name ASC)") == ["Adam", "Frank"])
        #expect(names("age > 0 SORT(name ASC) LIMIT(2) DISTINCT(age)") == ["Adam"])
        #expect(names("age > 0 SORT(name DESC) LIMIT(2) SORT(age ASC) LIMIT(1)") == ["Ben"])
        #expect(names("age > 0 sort(age descending, name ascending)") == ["Frank", "Adam", "Ben"])
        #expect(people.filter("age > 0 LIMIT(2)").count == 2)
        #expect(people.filter("age > 100 LIMIT(2)").isEmpty)
        #expect(people.filter("age > 0 SORT(name DESC) LIMIT(1)").first?.name == "Frank")
    }

    /// A distinct after a sort keeps the first of each group in sorted order; before it, the
    /// first stored (and the sort then orders what is left).
    @Test func distinctKeepsTheFirstInTheOrderSoFar() throws {
        let realm = try Self.realm([("Cy", 30), ("Al", 30), ("Bo", 20), ("Di", 20)])
        let people = realm.objects(DescriptorPerson.self)
        #expect(Self.names(people.sorted(byKeyPath: "name").distinct(by: ["age"])) == ["Al", "Bo"])
        #expect(Self.names(people.distinct(by: ["age"]).sorted(byKeyPath: "name")) == ["Bo", "Cy"])
        #expect(Self.names(people.filter("TRUEPREDICATE SORT(name DESC) DISTINCT(age)")) == ["Di", "Cy"])
    }

    /// Sorting sorted results makes the earlier sort the tie-breaker (realm-core merges the new
    /// keys in front).
    @Test func sortingSortedResultsBreaksTiesByTheEarlierSort() throws {
        let realm = try Self.realm([("Cy", 30), ("Al", 30), ("Bo", 20), ("Di", 20)])
        let people = realm.objects(DescriptorPerson.self)
        #expect(Self.names(people.sorted(byKeyPath: "name", ascending: false).sorted(byKeyPath: "age")) == ["Di", "Bo", "Cy", "Al"])
        #expect(Self.names(people.filter("TRUEPREDICATE SORT(name ASC) SORT(age DESC)")) == ["Al", "Cy", "Bo", "Di"])
    }

    /// Random predicates and descriptor sequences against the same steps done in Swift.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func randomOrderingsMatchAReference(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let names = ["Al", "Bo", "Cy", "Di", "Ed", "Flo"]
        let rows = (0..<600).map { _ in (names.randomElement(using: &random)!, Int.random(in: 0..<12, using: &random)) }
        let realm = try Self.realm(rows)
        let reference = rows.enumerated().map { (id: $0.offset, name: $0.element.0, age: $0.element.1) }
        for _ in 0..<60 {
            let bound = Int.random(in: 0..<12, using: &random)
            var text = "age >= \(bound)"
            var expected = reference.filter { $0.age >= bound }
            for _ in 0..<Int.random(in: 0...4, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    let byName = Bool.random(using: &random), ascending = Bool.random(using: &random)
                    text += " SORT(\(byName ? "name" : "age") \(ascending ? "ASC" : "DESC"))"
                    // Stable, as Realm's sort.
                    expected = expected.enumerated().sorted { a, b in
                        let (x, y) = byName ? (a.element.name, b.element.name) : (String(format: "%03d", a.element.age), String(format: "%03d", b.element.age))
                        if x != y { return ascending ? x < y : x > y }
                        return a.offset < b.offset
                    }.map(\.element)
                case 1:
                    let byName = Bool.random(using: &random)
                    text += " DISTINCT(\(byName ? "name" : "age"))"
                    var seen = Set<String>()
                    expected = expected.filter { seen.insert(byName ? $0.name : "\($0.age)").inserted }
                default:
                    let count = Int.random(in: 0..<80, using: &random)
                    text += " LIMIT(\(count))"
                    expected = Array(expected.prefix(count))
                }
            }
            let results = realm.objects(DescriptorPerson.self).filter(text)
            #expect(results.map(\.id) == expected.map(\.id), "\(text)")
            #expect(results.count == expected.count, "\(text)")
            #expect(results.first?.id == expected.first?.id, "\(text)")
            if expected.count > 3 { #expect(results[3].id == expected[3].id, "\(text)") }
        }
    }

    /// Descriptors that do not fit throw (from user input) with the problem and its offset.
    @Test func malformedDescriptorsThrow() throws {
        let realm = try Self.realm([("Al", 1)])
        let people = realm.objects(DescriptorPerson.self)
        for (text, message) in [
            ("age > 0 LIMIT(-1)", "Expected a non-negative integer in LIMIT"),
            ("age > 0 LIMIT(2.5)", "Expected a non-negative integer in LIMIT"),
            ("age > 0 LIMIT(word)", "Expected a non-negative integer in LIMIT"),
            ("age > 0 LIMIT()", "Expected a non-negative integer in LIMIT"),
            ("age > 0 LIMIT(1, 1)", "Expected ')' to close LIMIT"),
            ("age > 0 LIMIT(2", "Expected ')' to close LIMIT"),
            ("age > 0 SORT(age)", "Expected ASC or DESC after 'age' in SORT"),
            ("age > 0 SORT(nope ASC)", "Cannot sort on key path 'nope'"),
            ("age > 0 DISTINCT(nope)", "Cannot distinct on key path 'nope'"),
            ("age > 0 DISTINCT()", "Expected a key path in DISTINCT"),
            ("LIMIT(1)", "Expected"),
        ] {
            #expect {
                _ = try people.filter(validating: text)
            } throws: { error in
                (error as? Realm.Error)?.code == .invalidInput && (error as? Realm.Error)?.message.contains(message) == true
            }
        }
        // A property may be called `limit` or `sort`: only the keyword followed by `(` is one.
        #expect(throws: Realm.Error.self) { try people.filter(validating: "limit == 1") }
    }

    /// Results with a limit are not filtered further (Realm raises); the limit in the same
    /// predicate applies after the whole predicate.
    @Test func limitedResultsAreNotFilteredFurther() throws {
        let realm = try Self.realm([("Al", 1), ("Bo", 2), ("Cy", 3)])
        let limited = realm.objects(DescriptorPerson.self).filter("age > 0 LIMIT(2)")
        #expect(throws: Realm.Error.self) { try limited.filter(validating: "age > 1") }
        #expect(Self.names(realm.objects(DescriptorPerson.self).filter("age > 1 LIMIT(1)")) == ["Bo"])
        #expect(Self.names(limited.sorted(byKeyPath: "age", ascending: false)) == ["Bo", "Al"])
    }

    /// A stream of limited, sorted results reports what enters and leaves the first N.
    @Test func changesOfLimitedResults() async throws {
        let realm = try Self.realm([("Al", 10), ("Bo", 20), ("Cy", 30)])
        let top = realm.objects(DescriptorPerson.self).filter("age > 0 SORT(age DESC) LIMIT(2)")
        var changes = top.changes.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next() else { Issue.record("no initial"); return }
        #expect(initial.map(\.name) == ["Cy", "Bo"])
        try realm.write { realm.create(DescriptorPerson.self, value: ["id": 10, "name": "Di", "age": 25]) }
        guard case .update(let after, let deletions, let insertions, _) = await changes.next() else {
            Issue.record("no update"); return
        }
        #expect(after.map(\.name) == ["Cy", "Di"])
        #expect(deletions == [1])
        #expect(insertions == [1])
    }
}
