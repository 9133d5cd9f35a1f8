import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class QDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
}

final class QPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var email = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
    @Persisted var active = false
    @Persisted var nickname: String?
    @Persisted var rank: Int?
    @Persisted var born = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var dog: QDog?
    @Persisted var dogs: List<QDog>
    @Persisted var tags: List<String>
}

@Suite struct QueryTests {
    static let names = ["Ann", "ann", "Åsa", "Bob", "bobby", "Cleo", "Émile", "emile", "Zoë", ""]

    /// 60 people with dogs and tags, in an in-memory realm.
    static func people() throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write {
            let dogs = (0..<10).map { realm.create(QDog.self, value: ["id": $0, "name": "dog\($0)", "age": $0]) }
            for id in 0..<60 {
                realm.add(QPerson(value: [
                    "id": id, "name": names[id % names.count], "email": "p\(id % 20)@x.org", "age": id % 30,
                    "score": Double(id % 7) / 7, "active": id % 3 == 0, "nickname": id % 4 == 0 ? nil : "n\(id % 5)",
                    "rank": id % 6 == 0 ? nil : id % 13,
                    "born": Date(timeIntervalSinceReferenceDate: Double(id) * 86_400),
                    "dog": id % 5 == 0 ? nil : dogs[id % 10], "dogs": Array(dogs.prefix(id % 4)),
                    "tags": id % 2 == 0 ? ["even", "t\(id % 3)"] : ["odd"],
                ]))
            }
        }
        return realm
    }

    static func ids(_ results: Results<QPerson>) -> [Int] { results.map(\.id) }

    /// A filtered count is computed once per version of the handle, and never stale: a change
    /// inside a write, a cancelled write, and another handle's commit seen after `refresh()`
    /// each give the new count.
    @Test func aFilteredCountFollowsEveryChangeOfTheHandle() throws {
        let directory = try TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("count.realm"), objectTypes: [QPerson.self, QDog.self])
        let realm = try Realm(configuration: configuration)
        try realm.write { for id in 0..<50 { realm.add(QPerson(value: ["id": id, "age": id % 10])) } }
        let young = realm.objects(QPerson.self).filter("age < 3")
        let sorted = young.sorted(byKeyPath: "age")
        #expect(young.count == 15 && young.count == 15 && sorted.count == 15)
        realm.beginWrite()
        realm.add(QPerson(value: ["id": 100, "age": 1]))
        #expect(young.count == 16 && sorted.count == 16)
        realm.delete(realm.objects(QPerson.self).filter("id < 5"))
        #expect(young.count == 13)
        realm.cancelWrite()
        #expect(young.count == 15 && !young.isEmpty)
        let other = try Realm(configuration: configuration)
        try other.write { other.add(QPerson(value: ["id": 200, "age": 0])) }
        realm.refresh()
        #expect(young.count == 16 && Array(young.prefix(100)).count == 16)
    }

    @Test func comparisonsOnEveryKind() throws {
        let realm = try Self.people()
        let all = Array(realm.objects(QPerson.self))
        func check(_ query: (Query<QPerson>) -> Query<Bool>, _ expected: (QPerson) -> Bool, _ label: String) {
            #expect(Self.ids(realm.objects(QPerson.self).where(query)) == all.filter(expected).map(\.id), "\(label)")
        }
        check({ $0.age < 10 }, { $0.age < 10 }, "int <")
        check({ $0.age >= 25 }, { $0.age >= 25 }, "int >=")
        check({ $0.age == 7 }, { $0.age == 7 }, "int ==")
        check({ $0.age != 7 }, { $0.age != 7 }, "int !=")
        check({ $0.score > 0.5 }, { $0.score > 0.5 }, "double >")
        check({ $0.active == true }, { $0.active }, "bool ==")
        check({ $0.active }, { $0.active }, "bare bool")
        check({ !$0.active }, { !$0.active }, "not")
        check({ $0.nickname == nil }, { $0.nickname == nil }, "== nil")
        check({ $0.nickname != nil }, { $0.nickname != nil }, "!= nil")
        check({ $0.nickname == "n1" }, { $0.nickname == "n1" }, "optional string ==")
        check({ $0.born > Date(timeIntervalSinceReferenceDate: 30 * 86_400) }, { $0.born.timeIntervalSinceReferenceDate > 30 * 86_400 }, "date >")
        check({ $0.age.in([1, 2, 3]) }, { [1, 2, 3].contains($0.age) }, "IN")
        check({ $0.age.contains(5...8) }, { (5...8).contains($0.age) }, "BETWEEN")
        check({ $0.email == "p3@x.org" }, { $0.email == "p3@x.org" }, "indexed ==")
        check({ $0.email.in(["p3@x.org", "p4@x.org"]) && $0.age > 10 }, { ["p3@x.org", "p4@x.org"].contains($0.email) && $0.age > 10 }, "indexed IN with AND")
        check({ $0.id == 42 }, { $0.id == 42 }, "primary key")
        check({ $0.age < 5 || $0.age > 25 }, { $0.age < 5 || $0.age > 25 }, "or")
    }

    @Test func stringOperatorsWithOptions() throws {
        let realm = try Self.people()
        let all = Array(realm.objects(QPerson.self))
        func check(_ query: (Query<QPerson>) -> Query<Bool>, _ expected: (String) -> Bool, _ label: String) {
            #expect(Self.ids(realm.objects(QPerson.self).where(query)) == all.filter { expected($0.name) }.map(\.id), "\(label)")
        }
        check({ $0.name.starts(with: "b") }, { $0.hasPrefix("b") }, "BEGINSWITH")
        check({ $0.name.starts(with: "b", options: .caseInsensitive) }, { $0.lowercased().hasPrefix("b") }, "BEGINSWITH[c]")
        check({ $0.name.ends(with: "le") }, { $0.hasSuffix("le") }, "ENDSWITH")
        check({ $0.name.contains("ob") }, { $0.contains("ob") }, "CONTAINS")
        check({ $0.name.equals("ann", options: .caseInsensitive) }, { $0.lowercased() == "ann" }, "==[c]")
        check({ $0.name.equals("emile", options: [.caseInsensitive, .diacriticInsensitive]) }, { ["Émile", "emile"].contains($0) }, "==[cd]")
        check({ $0.name.contains("ö", options: .diacriticInsensitive) }, { ["Bob", "bobby", "Cleo", "Zoë"].contains($0) }, "CONTAINS[d] folds both sides")
        check({ $0.name.like("?o*") }, { $0.count >= 2 && Array($0)[1] == "o" }, "LIKE")
        check({ $0.name == "" }, { $0.isEmpty }, "empty string")
    }

    @Test func linksListsAndAggregates() throws {
        let realm = try Self.people()
        let all = Array(realm.objects(QPerson.self))
        func check(_ query: (Query<QPerson>) -> Query<Bool>, _ expected: (QPerson) -> Bool, _ label: String) {
            #expect(Self.ids(realm.objects(QPerson.self).where(query)) == all.filter(expected).map(\.id), "\(label)")
        }
        check({ $0.dog.age > 5 }, { ($0.dog?.age ?? -1) > 5 }, "through a link")
        check({ $0.dog == nil }, { $0.dog == nil }, "nil link")
        check({ $0.dogs.age == 2 }, { $0.dogs.contains { $0.age == 2 } }, "ANY through a list")
        check({ $0.dogs.count == 2 }, { $0.dogs.count == 2 }, "@count")
        check({ $0.tags.contains("even") }, { $0.tags.contains("even") }, "list of strings contains")
        check({ $0.tags.containsAny(in: ["t1", "odd"]) }, { !Set($0.tags).isDisjoint(with: ["t1", "odd"]) }, "containsAny")
        let dog3 = try #require(realm.object(ofType: QDog.self, forPrimaryKey: 3))
        check({ $0.dog == dog3 }, { $0.dog?.id == 3 }, "link == object")
        // Results aggregates.
        let people = realm.objects(QPerson.self).where { $0.age < 10 }
        #expect(people.max(ofProperty: "age") == 9 as Int?)
        #expect(people.min(of: \.score) == 0.0)
        #expect(people.sum(of: \.age) == all.filter { $0.age < 10 }.reduce(0) { $0 + $1.age })
        let average: Double? = people.average(ofProperty: "age")
        #expect(average == Double(all.filter { $0.age < 10 }.reduce(0) { $0 + $1.age }) / Double(people.count))
    }

    @Test func sortingDistinctAndIndexMatching() throws {
        let realm = try Self.people()
        let all = Array(realm.objects(QPerson.self))
        let byAgeThenName = realm.objects(QPerson.self).sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name", ascending: false)])
        let expected = all.sorted { $0.age != $1.age ? $0.age < $1.age : ($0.name != $1.name ? Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) == false : $0.id < $1.id) }
        #expect(Self.ids(byAgeThenName) == expected.map(\.id))
        // nil first ascending, last descending; ties keep key order.
        let byNickname = Self.ids(realm.objects(QPerson.self).sorted(byKeyPath: "nickname"))
        #expect(byNickname.prefix(15) == all.filter { $0.nickname == nil }.map(\.id)[...])
        #expect(Self.ids(realm.objects(QPerson.self).sorted(byKeyPath: "nickname", ascending: false)).suffix(15) == byNickname.prefix(15))
        // Sorting through a link; the last sort wins.
        let byDogAge = realm.objects(QPerson.self).sorted(byKeyPath: "age").sorted(byKeyPath: "dog.age", ascending: false)
        #expect(byDogAge.first?.dog?.age == 9)
        let distinctAges = realm.objects(QPerson.self).distinct(by: ["age"])
        #expect(distinctAges.count == 30 && Self.ids(distinctAges) == Array(0..<30))
        #expect(realm.objects(QPerson.self).sorted(byKeyPath: "age").index(matching: { $0.age == 3 }) == 6)
    }

    @Test func resultsAreLiveAndChain() throws {
        let realm = try Self.people()
        let young = realm.objects(QPerson.self).where { $0.age < 3 }.where { $0.active }
        let before = young.count
        #expect(before == Array(realm.objects(QPerson.self)).filter { $0.age < 3 && $0.active }.count)
        try realm.write {
            realm.add(QPerson(value: ["id": 1000, "age": 1, "active": true]))
            #expect(young.count == before + 1, "inside the write, too")
        }
        #expect(young.count == before + 1 && young.last?.id == 1000)
        try realm.write { realm.delete(young) }
        #expect(young.isEmpty)
    }

    /// Random predicates, as `where { }` blocks and as query strings, against a brute-force
    /// evaluation of the same condition in Swift.
    @Test(arguments: 0..<8)
    func randomPredicatesAgreeWithBruteForce(seed: UInt64) throws {
        let realm = try Self.people()
        let all = Array(realm.objects(QPerson.self))
        var random = SplitMix64(seed: seed)
        typealias Condition = (query: (Query<QPerson>) -> Query<Bool>, text: String, swift: (QPerson) -> Bool)
        func atom() -> Condition {
            let k = Int.random(in: 0..<30, using: &random)
            let x = Double(Int.random(in: 0...7, using: &random)) / 7
            let letter = ["a", "b", "e", "z"].randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0: return ({ $0.age < k }, "age < \(k)", { $0.age < k })
            case 1: return ({ $0.age == k }, "\(k) == age", { $0.age == k })
            case 2: return ({ $0.score >= x }, "score >= \(x)", { $0.score >= x })
            case 3: return ({ $0.active }, "active == true", { $0.active })
            case 4: return ({ $0.nickname == nil }, "nickname == nil", { $0.nickname == nil })
            case 5: return ({ $0.name.starts(with: letter, options: .caseInsensitive) }, "name BEGINSWITH[c] '\(letter)'",
                            { $0.name.lowercased().hasPrefix(letter) })
            case 6: return ({ $0.dogs.age > k % 10 }, "ANY dogs.age > \(k % 10)", { person in person.dogs.contains { $0.age > k % 10 } })
            case 7: return ({ $0.rank < k % 13 }, "rank < \(k % 13)", { $0.rank.map { $0 < k % 13 } ?? false })
            case 8: return ({ $0.rank != k % 13 }, "rank != \(k % 13)", { $0.rank != k % 13 })
            default: return ({ $0.dogs.count >= k % 4 }, "dogs.@count >= \(k % 4)", { $0.dogs.count >= k % 4 })
            }
        }
        func condition(depth: Int) -> Condition {
            guard depth > 0, Bool.random(using: &random) else { return atom() }
            let (a, b) = (condition(depth: depth - 1), condition(depth: depth - 1))
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return ({ a.query($0) && b.query($0) }, "(\(a.text) AND \(b.text))", { a.swift($0) && b.swift($0) })
            case 1: return ({ a.query($0) || b.query($0) }, "(\(a.text) OR \(b.text))", { a.swift($0) || b.swift($0) })
            default: return ({ !a.query($0) }, "NOT \(a.text)", { !a.swift($0) })
            }
        }
        for _ in 0..<40 {
            let predicate = condition(depth: 3)
            let expected = all.filter(predicate.swift).map(\.id)
            let found = Self.ids(realm.objects(QPerson.self).where(predicate.query))
            #expect(found == expected, "where: \(predicate.text)")
            #expect(Self.ids(realm.objects(QPerson.self).filter(predicate.text)) == expected, "string: \(predicate.text)")
            #expect(realm.objects(QPerson.self).where(predicate.query).count == found.count)
        }
    }

    @Test func queryStringsWithArgumentsCollectionsAndSubqueries() throws {
        let realm = try Self.people()
        let all = Array(realm.objects(QPerson.self))
        func ids(_ format: String, _ arguments: Any...) throws -> [Int] {
            Self.ids(realm.objects(QPerson.self).filter(format, argumentArray: arguments))
        }
        #expect(try ids("age > %@ AND name BEGINSWITH[c] %@", 20, "b") == all.filter { $0.age > 20 && $0.name.lowercased().hasPrefix("b") }.map(\.id))
        #expect(try ids("%K == %@", "email", "p3@x.org") == all.filter { $0.email == "p3@x.org" }.map(\.id))
        #expect(try ids("age BETWEEN {5, 8}") == all.filter { (5...8).contains($0.age) }.map(\.id))
        #expect(try ids("age IN {1, 2, 3}") == all.filter { [1, 2, 3].contains($0.age) }.map(\.id))
        #expect(try ids("'even' IN tags") == all.filter { $0.tags.contains("even") }.map(\.id))
        #expect(try ids("ALL dogs.age < 2") == all.filter { $0.dogs.allSatisfy { $0.age < 2 } }.map(\.id))
        #expect(try ids("NONE dogs.age == 1") == all.filter { !$0.dogs.contains { $0.age == 1 } }.map(\.id))
        #expect(try ids("dogs.@max.age == 2") == all.filter { $0.dogs.map(\.age).max() == 2 }.map(\.id))
        #expect(try ids("dogs.@sum.age > 1") == all.filter { $0.dogs.reduce(0) { $0 + $1.age } > 1 }.map(\.id))
        #expect(try ids("SUBQUERY(dogs, $d, $d.age >= 1 AND $d.name ENDSWITH '2').@count == 1")
                == all.filter { $0.dogs.filter { $0.age >= 1 && $0.name.hasSuffix("2") }.count == 1 }.map(\.id))
        #expect(try ids("name LIKE '?o*'") == all.filter { $0.name.count >= 2 && Array($0.name)[1] == "o" }.map(\.id))
        #expect(try ids("dog.name == $0", "dog3") == all.filter { $0.dog?.name == "dog3" }.map(\.id))
        #expect(try ids("born > %@", Date(timeIntervalSinceReferenceDate: 50 * 86_400)) == all.filter { $0.born.timeIntervalSinceReferenceDate > 50 * 86_400 }.map(\.id))
        #expect(try ids("TRUEPREDICATE").count == 60 && ids("FALSEPREDICATE").isEmpty)
        let dog3 = try #require(realm.object(ofType: QDog.self, forPrimaryKey: 3))
        #expect(try ids("dog == %@", dog3) == all.filter { $0.dog?.id == 3 }.map(\.id))
        #expect(realm.objects(QPerson.self).index(matching: "age == %@", 29) == 29)
    }

    /// Errors from bad query strings: thrown, with what and where.
    @Test(arguments: [
        ("agee < 2", "Property 'agee' not found in object of type 'QPerson'"),
        ("age < 'x'", "Cannot compare 'age' of type 'int' with string 'x'"),
        ("name > 'x' AND", "end of the predicate"),
        ("age BEGINSWITH 5", "needs a string or data property"),
        ("name.first == 'x'", "is not a link"),
        ("dogs == nil", "Cannot compare linklist"),
        ("active > true", "not supported"),
        ("dog == 3", "Cannot compare"),
        ("age BETWEEN {1}", "exactly two values"),
        ("dogs.@avg.name > 1", "collection of numbers"),
        ("SUBQUERY(tags, $t, $t == 'x').@count > 0", "collection of objects"),
        ("age[c] == 1", "Expected FIRST, LAST, SIZE"),
        ("score ==[c] 1.0", "apply to strings"),
    ] as [(String, String)])
    func badQueryStringsThrow(predicate: String, expected: String) throws {
        let realm = try Self.people()
        do {
            _ = try realm.objects(QPerson.self).filter(validating: predicate)
            Issue.record("'\(predicate)' was accepted")
        } catch let error as Realm.Error {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains(expected) && error.message.contains("at offset"), "\(error.message)")
        }
    }

    /// Predicates from outside the program throw on every collection that filters, and do
    /// nothing else differently.
    @Test func validatingFormsThrowWhereTheLiteralFormsWouldTrap() throws {
        let realm = try Self.people()
        let person = try #require(realm.object(ofType: QPerson.self, forPrimaryKey: 3))
        let bad = "dogs.@avg.name > 1"
        func expectInvalid(_ label: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(label): '\(bad)' was accepted")
            } catch let error as Realm.Error {
                #expect(error.code == .invalidInput && error.message.contains("at offset"), "\(label): \(error.message)")
            } catch {
                Issue.record("\(label): \(error)")
            }
        }
        expectInvalid("results") { _ = try realm.objects(QPerson.self).filter(validating: bad) }
        expectInvalid("index") { _ = try realm.objects(QPerson.self).index(validating: bad) }
        expectInvalid("frozen") { _ = try realm.objects(QPerson.self).freeze().filter(validating: bad) }
        expectInvalid("list") { _ = try person.dogs.filter(validating: "nosuch > 1") }
        let valid = try realm.objects(QPerson.self).filter(validating: "age < %@", 5)
        #expect(Self.ids(valid) == Self.ids(realm.objects(QPerson.self).filter("age < %@", 5)))
        #expect(try realm.objects(QPerson.self).index(validating: "age == %@", 29) == 29)
    }

    /// A predicate written in the program that does not fit is a programmer error: it traps
    /// with the parser's message and offset, as Realm raises.
    @Test func aMalformedLiteralPredicateTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
            _ = realm.objects(QPerson.self).filter("age >> 3").count
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("Invalid predicate 'age >> 3'") && message.contains("at offset"), "\(message)")
        }
    }
}

final class QOwner: Object {
    @Persisted var name = ""
    @Persisted var pets: List<QPet>
}

final class QPet: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted(originProperty: "pets") var owners: LinkingObjects<QOwner>
}

extension QueryTests {
    @Test func listsAndLinkingObjectsAreQueriedInTheirOwnOrder() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let owner = QOwner(value: ["name": "Ann"])
        try realm.write {
            realm.add(owner)
            for (name, age) in [("Rex", 5), ("Ace", 1), ("Max", 3), ("Bo", 1)] {
                owner.pets.append(QPet(value: ["name": name, "age": age]))
            }
            owner.pets.append(owner.pets[1])  // Ace twice
            realm.add(QOwner(value: ["name": "Bob", "pets": [owner.pets[0]]]))
        }
        #expect(owner.pets.where { $0.age < 3 }.map(\.name) == ["Ace", "Bo", "Ace"], "list order, duplicates kept")
        #expect(owner.pets.sorted(byKeyPath: "name").map(\.name) == ["Ace", "Ace", "Bo", "Max", "Rex"])
        let rex = owner.pets[0]
        #expect(rex.owners.where { $0.name.starts(with: "B") }.map(\.name) == ["Bob"])
        #expect(rex.owners.sorted(byKeyPath: "name", ascending: false).map(\.name) == ["Bob", "Ann"])
        // Queries through linking objects (not stored: they follow the link index backwards).
        #expect(Set(realm.objects(QPet.self).where { $0.owners.name == "Bob" }.map(\.name)) == ["Rex"])
        // Realm counts a backlink per link: Ace is in Ann's list twice, so it has two owners.
        #expect(realm.objects(QPet.self).where { $0.owners.count == 2 }.map(\.name) == ["Rex", "Ace"])
        // …and so does the collection itself, as Realm's linking objects do.
        let ace = owner.pets[1]
        #expect(ace.owners.map(\.name) == ["Ann", "Ann"] && ace.owners.count == 2)
        #expect(ace.owners.filter("name == 'Ann'").count == 2)
        let young = owner.pets.where { $0.age == 1 }
        try realm.write { owner.pets.remove(at: 1) }
        #expect(young.map(\.name) == ["Bo", "Ace"], "live: follows the list")
    }
}

final class QEvent: Object {
    @Persisted(indexed: true) var level = 0
    @Persisted(indexed: true) var at = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var label = ""
}

extension QueryTests {
    /// Ranges on indexed integers and dates (answered from the index when narrow, by a scan when
    /// wide) agree with brute force, including negative values and both bound kinds.
    @Test func rangesOnIndexedPropertiesAgreeWithBruteForce() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        var random = SplitMix64(seed: 99)
        try realm.write {
            for index in 0..<2000 {
                realm.add(QEvent(value: ["level": Int.random(in: -500...500, using: &random),
                                         "at": Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -10_000...10_000, using: &random))),
                                         "label": "e\(index)"]))
            }
        }
        let all = Array(realm.objects(QEvent.self))
        func labels(_ results: Results<QEvent>) -> [String] { results.map(\.label) }
        for _ in 0..<30 {
            let a = Int.random(in: -520...520, using: &random)
            let b = a + Int.random(in: 0...40, using: &random) * (Bool.random(using: &random) ? 1 : 25)
            #expect(labels(realm.objects(QEvent.self).where { $0.level < a }) == all.filter { $0.level < a }.map(\.label))
            #expect(labels(realm.objects(QEvent.self).where { $0.level >= b }) == all.filter { $0.level >= b }.map(\.label))
            #expect(labels(realm.objects(QEvent.self).where { $0.level.contains(a...b) }) == all.filter { (a...b).contains($0.level) }.map(\.label))
            #expect(labels(realm.objects(QEvent.self).filter("level > %@ AND level <= %@", a, b))
                    == all.filter { $0.level > a && $0.level <= b }.map(\.label))
            let from = Date(timeIntervalSinceReferenceDate: Double(a * 20))
            #expect(labels(realm.objects(QEvent.self).where { $0.at > from }) == all.filter { $0.at > from }.map(\.label))
        }
    }
}

extension QueryTests {
    /// A leaf whose integers are all zero stores them in zero bytes: scans must read them as 0.
    @Test func scansOfAllZeroIntegerColumns() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write { for id in 0..<500 { realm.add(QDog(value: ["id": id, "name": "d", "age": 0])) } }
        let dogs = realm.objects(QDog.self)
        #expect(dogs.where { $0.age == 0 }.count == 500)
        #expect(dogs.where { $0.age < 0 }.count == 0 && dogs.where { $0.age != 0 }.count == 0)
        #expect(dogs.where { $0.age >= 0 && $0.id < 10 }.map(\.id) == Array(0..<10))
    }
}

extension QueryTests {
    /// Sorting a list that holds every object of its class, in another order and with duplicates
    /// removed, sorts by the objects' values, not by their positions.
    @Test func sortingAListHoldingTheWholeTable() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let owner = QOwner()
        try realm.write {
            realm.add(owner)
            for (name, age) in [("a", 3), ("b", 1), ("c", 2)] { realm.add(QPet(value: ["name": name, "age": age])) }
            owner.pets.append(contentsOf: realm.objects(QPet.self).sorted(byKeyPath: "name", ascending: false))
        }
        #expect(owner.pets.map(\.name) == ["c", "b", "a"])
        #expect(owner.pets.sorted(byKeyPath: "age").map(\.name) == ["b", "c", "a"])
        #expect(realm.objects(QPet.self).sorted(byKeyPath: "age", ascending: false).map(\.name) == ["a", "c", "b"])
    }
}

extension QueryTests {
    /// Column scans (the column-at-a-time path, with prefetching across several leaves) against a
    /// brute-force evaluation: an integer column compared with fractional, huge and NaN doubles
    /// (turned into exact integer tests), a nullable integer column (nil passes only `!=`), and
    /// booleans — through both `count` and the materialized keys.
    @Test func columnScansAgreeWithBruteForceOnEdgeConstants() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        try realm.write {
            for id in 0..<700 {
                realm.add(QPerson(value: ["id": id, "age": id % 41 - 20, "rank": id % 7 == 0 ? nil : id % 23 - 11,
                                          "active": id % 3 == 0, "score": Double(id % 9) / 4]))
            }
        }
        let all = Array(realm.objects(QPerson.self))
        let operators: [(String, (Double, Double) -> Bool)] = [
            ("<", { $0 < $1 }), ("<=", { $0 <= $1 }), (">", { $0 > $1 }), (">=", { $0 >= $1 }), ("==", { $0 == $1 }), ("!=", { $0 != $1 }),
        ]
        let constants: [Double] = [-1e300, -20.5, -3, -0.5, 0, 2.25, 7, 19.999, 1e19, 0x1p63, -0x1p63, .nan, .infinity]
        for (op, compare) in operators {
            for constant in constants {
                for property in ["age", "rank", "score"] {
                    let expected = all.filter { person in
                        let value: Double? = switch property {
                        case "age": Double(person.age)
                        case "rank": person.rank.map(Double.init)
                        default: person.score
                        }
                        guard let value else { return op == "!=" }
                        return compare(value, constant)
                    }.map(\.id)
                    let results = realm.objects(QPerson.self).filter("\(property) \(op) %@", constant)
                    #expect(Self.ids(results) == expected, "\(property) \(op) \(constant)")
                    #expect(results.count == expected.count, "count of \(property) \(op) \(constant)")
                }
            }
        }
        for value in [true, false] {
            for op in ["==", "!="] {
                let expected = all.filter { ($0.active == value) == (op == "==") }.map(\.id)
                let results = realm.objects(QPerson.self).filter("active \(op) %@ AND age < 10", value)
                #expect(Self.ids(results) == expected.filter { id in all[id].age < 10 }, "active \(op) \(value)")
                #expect(results.count == expected.filter { id in all[id].age < 10 }.count)
            }
        }
    }
}

extension QueryTests {
    /// An equality on an indexed string is answered by the index alone when the index holds the
    /// value in full; long strings (cut to the index's key limit) and strings near that limit are
    /// still confirmed against the objects, so a shared prefix never matches.
    @Test func indexedEqualityOnLongStringsMatchesExactly() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let long = String(repeating: "a", count: 600)
        var emails = [long, long + "x", long + "y", String(long.prefix(466)), String(long.prefix(467)),
                      String(long.prefix(468)), String(long.prefix(469)), String(long.prefix(470)), "a", "", "a\u{0}b", "b\u{0}"]
        emails += emails.map { $0 + "\u{0}" }
        try realm.write {
            for (id, email) in emails.enumerated() { realm.add(QPerson(value: ["id": id, "email": email])) }
        }
        for (id, email) in emails.enumerated() {
            #expect(Self.ids(realm.objects(QPerson.self).where { $0.email == email }) == [id], "\(email.utf8.count) bytes")
            #expect(realm.objects(QPerson.self).filter("email == %@", email).count == 1)
        }
        #expect(realm.objects(QPerson.self).where { $0.email == String(long.prefix(471)) }.isEmpty)
        #expect(realm.objects(QPerson.self).where { $0.email == String(long.prefix(500)) }.count == 0)
    }
}
