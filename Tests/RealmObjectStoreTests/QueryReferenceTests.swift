import Foundation
import Testing
import RealmObjectStore
import RealmTestSupport

/// The query plan and evaluator below the API, against a brute-force reference: every operator
/// on every kind of property (comparisons, string operators with `[c]`/`[d]`, `BETWEEN`, `IN`,
/// `ANY`/`ALL`/`NONE` over lists and links, `@count`/`@sum`/`@avg`/`@min`/`@max`, `SUBQUERY`,
/// nil, links several hops long and linking objects) is parsed, bound by ``QueryContext`` and
/// evaluated on seeded random data (``QueryReferenceModel``); its objects must be exactly those
/// ``QueryReference`` finds by checking every object in plain Swift. Each answer is asked three
/// ways — the keys (index, range or column scan, or object by object), the count, and each
/// object's own match — since the evaluator takes a different path for each.
@Suite struct QueryReferenceTests {
    typealias Person = QueryReferenceModel.Person
    /// A predicate as text and as the reference's test of one person.
    typealias Atom = (text: String, test: (Person) -> Bool)

    /// Every atom the reference knows, over `model`.
    static func atoms(_ model: QueryReferenceModel, _ random: inout SplitMix64) -> [Atom] {
        var atoms: [Atom] = []
        let orderings = ["==", "!=", "<", "<=", ">", ">="]
        func op() -> String { orderings.randomElement(using: &random)! }
        func int(_ range: ClosedRange<Int64>) -> Int64 { Int64.random(in: range, using: &random) }
        func dog(_ index: Int?) -> QueryReferenceModel.Dog? { index.map { model.dogs[$0] } }
        func friend(_ person: Person) -> Person? { person.friend.map { model.people[$0] } }
        func compare<T: Comparable>(_ a: T?, _ op: String, _ b: T?) -> Bool { QueryReference.compare(a, op, b) }
        let text = QueryReference.text

        // Numbers of each kind against literals; an int property against a fractional double.
        for op in orderings {
            let (age, id) = (int(-1...61), int(-1...161))
            atoms.append(("age \(op) \(age)", { compare($0.age, op, age) }))
            atoms.append(("id \(op) \(id)", { compare($0.id, op, id) }))
            atoms.append(("age \(op) 20.5", { compare(Double($0.age), op, 20.5) }))
            let score = QueryReferenceModel.scorePool.compactMap { $0 }.randomElement(using: &random)!
            atoms.append(("score \(op) \(score)", { compare($0.score, op, score) }))
            let ratio = QueryReferenceModel.ratioPool.randomElement(using: &random)!
            atoms.append(("ratio \(op) \(ratio)", { compare($0.ratio, op, ratio) }))
            let born = QueryReferenceModel.bornPool.randomElement(using: &random)!
            atoms.append(("born \(op) T\(born):0", { compare($0.born, op, born) }))
            for balance in ["1.5", "1", "-2", "3.25", "0"] {
                atoms.append(("balance \(op) \(balance)", { compare($0.balanceValue, op, Double(balance)!) }))
            }
            let oid = QueryReferenceModel.oidPool[Int.random(in: 0..<3, using: &random)]!
            let hex = oid.map { String(format: "%02x", $0) }.joined()
            atoms.append(("oid \(op) oid(\(hex))", { person in
                guard let value = person.oid else { return op == "!=" }
                return compare(value.lexicographicallyPrecedes(oid) ? -1 : value == oid ? 0 : 1, op, 0)
            }))
        }
        // BETWEEN (inclusive) and IN.
        for _ in 0..<3 {
            let (low, high) = (int(-1...40), int(20...61))
            atoms.append(("age BETWEEN {\(low), \(high)}", { $0.age >= low && $0.age <= high }))
            atoms.append(("id BETWEEN {\(low), \(high)}", { $0.id >= low && $0.id <= high }))
            let list = (0..<Int.random(in: 1...4, using: &random)).map { _ in int(0...60) }
            atoms.append(("age IN {\(list.map(String.init).joined(separator: ", "))}", { list.contains($0.age) }))
            atoms.append(("id IN {\(list.map(String.init).joined(separator: ", "))}", { list.contains($0.id) }))
        }
        atoms.append(("score BETWEEN {0, 7.5}", { $0.score.map { $0 >= 0 && $0 <= 7.5 } ?? false }))
        atoms.append(("born BETWEEN {T0:0, T1000000000:0}", { $0.born >= 0 && $0.born <= 1_000_000_000 }))
        atoms.append(("balance BETWEEN {1, 1.5}", { $0.balanceValue.map { $0 >= 1 && $0 <= 1.5 } ?? false }))
        atoms.append(("score IN {2.25, -1.5}", { $0.score == 2.25 || $0.score == -1.5 }))
        atoms.append(("name IN {'Ann', 'bobby', ''}", { ["Ann", "bobby", ""].contains($0.name) }))
        atoms.append(("score IN {nil, 0}", { $0.score == nil || $0.score == 0 }))

        // Nil and booleans.
        for (name, isNil) in [("score", { (p: Person) in p.score == nil }), ("balance", { $0.balance == nil }),
                              ("oid", { $0.oid == nil }), ("flag", { $0.flag == nil }), ("name", { $0.name == nil }),
                              ("dog", { $0.dog == nil }), ("friend", { $0.friend == nil })] as [(String, (Person) -> Bool)] {
            atoms.append(("\(name) == nil", isNil))
            atoms.append(("\(name) != nil", { !isNil($0) }))
        }
        atoms.append(("flag == true", { $0.flag == true }))
        atoms.append(("flag != true", { $0.flag != true }))
        atoms.append(("flag == false", { $0.flag == false }))
        atoms.append(("nick == nil", { _ in false }))

        // Strings: every operator with every option, on an indexed optional and a plain property.
        let needles = ["a", "A", "ann", "ANN", "bo", "é", "É", "e", "mile", "Zo", "zoë", "", "Åsa", "asa"]
        let patterns = ["a*", "*e", "?o*", "*mil?", "Z?e", "*", "?", "A?n*", "*s*", "é*"]
        for property in ["name", "nick"] {
            for options in ["", "c", "d", "cd"] {
                let written = options.isEmpty ? "" : "[\(options)]"
                for op in ["==", "!=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE"] {
                    let needle = op == "LIKE" ? patterns.randomElement(using: &random)! : needles.randomElement(using: &random)!
                    atoms.append(("\(property) \(op)\(written) '\(needle)'", { person in
                        text(property == "name" ? person.name : person.nick, op, needle, options)
                    }))
                }
            }
        }
        // A string's @count is its length in UTF-8 bytes (nil, or a string past a nil link, has none).
        let length = int(0...6)
        atoms.append(("name.@count > \(length)", { ($0.name?.utf8.count).map { $0 > length } ?? false }))
        atoms.append(("nick.@count == \(length)", { $0.nick.utf8.count == length }))
        atoms.append(("name.@count < 2", { ($0.name?.utf8.count).map { $0 < 2 } ?? false }))
        atoms.append(("name.@count == nil", { $0.name == nil }))
        atoms.append(("friend.name.@count > \(length)", { (friend($0)?.name?.utf8.count).map { $0 > length } ?? false }))
        atoms.append(("friend.friend.nick.@count == nil", { friend($0).flatMap(friend) == nil }))

        // Lists of values: ANY/ALL/NONE (no modifier is ANY), membership, aggregates.
        for modifier in ["ANY", "ALL", "NONE"] {
            let (op, value) = (op(), int(-2...9))
            atoms.append(("\(modifier) scores \(op) \(value)", { QueryReference.quantify(modifier, $0.scores) { compare($0, op, value) } }))
            let (tagOp, options) = (["==", "BEGINSWITH", "CONTAINS"].randomElement(using: &random)!, ["", "c", "cd"].randomElement(using: &random)!)
            let needle = ["r", "Re", "el", "élan", "e"].randomElement(using: &random)!
            let written = options.isEmpty ? "" : "[\(options)]"
            atoms.append(("\(modifier) tags \(tagOp)\(written) '\(needle)'", {
                QueryReference.quantify(modifier, $0.tags) { text($0, tagOp, needle, options) }
            }))
            atoms.append(("\(modifier) dogs.age \(op) \(value)", { person in
                QueryReference.quantify(modifier, person.dogs) { compare(model.dogs[$0].age, op, value) }
            }))
            atoms.append(("\(modifier) friend.dogs.age \(op) \(value)", { person in
                QueryReference.quantify(modifier, friend(person)?.dogs ?? []) { compare(model.dogs[$0].age, op, value) }
            }))
            atoms.append(("\(modifier) dog.owners.age \(op) \(value * 6)", { person in
                let owners = person.dog.map { model.owners(of: $0) } ?? []
                return QueryReference.quantify(modifier, owners) { compare($0.age, op, value * 6) }
            }))
        }
        let member = int(-2...9)
        atoms.append(("\(member) IN scores", { $0.scores.contains(member) }))
        atoms.append(("scores CONTAINS \(member)", { $0.scores.contains(member) }))
        atoms.append(("'red' IN tags", { $0.tags.contains("red") }))
        for op in orderings {
            let (count, sum, average) = (int(0...4), int(-4...20), Double(int(-2...9)) + 0.5)
            atoms.append(("scores.@count \(op) \(count)", { compare(Int64($0.scores.count), op, count) }))
            atoms.append(("scores.@sum \(op) \(sum)", { compare($0.scores.reduce(Int64(0), +), op, sum) }))
            atoms.append(("scores.@avg \(op) \(average)", { person in
                compare(person.scores.isEmpty ? nil : Double(person.scores.reduce(Int64(0), +)) / Double(person.scores.count), op, average)
            }))
            atoms.append(("scores.@min \(op) \(count)", { compare($0.scores.min(), op, count) }))
            atoms.append(("scores.@max \(op) \(count + 3)", { compare($0.scores.max(), op, count + 3) }))
            atoms.append(("tags.@count \(op) \(count)", { compare(Int64($0.tags.count), op, count) }))
            atoms.append(("dogs.@count \(op) \(count)", { compare(Int64($0.dogs.count), op, count) }))
            atoms.append(("dogs.@max.age \(op) \(sum)", { compare($0.dogs.map { model.dogs[$0].age }.max(), op, sum) }))
            atoms.append(("dogs.age.@min \(op) \(count * 2)", { compare($0.dogs.map { model.dogs[$0].age }.min(), op, count * 2) }))
            atoms.append(("dogs.@sum.age \(op) \(sum)", { compare($0.dogs.map { model.dogs[$0].age }.reduce(Int64(0), +), op, sum) }))
            atoms.append(("dogs.@avg.weight \(op) \(average)", { person in
                let weights = person.dogs.compactMap { model.dogs[$0].weight }
                return compare(weights.isEmpty ? nil : weights.reduce(0, +) / Double(weights.count), op, average)
            }))
            atoms.append(("dog.owners.@count \(op) \(count + 4)", { person in
                compare(Int64(person.dog.map { model.owners(of: $0).count } ?? 0), op, count + 4)
            }))
        }
        atoms.append(("scores.@avg == nil", { $0.scores.isEmpty }))
        atoms.append(("scores.@min == nil", { $0.scores.isEmpty }))

        // Links: to-one, several hops, nil along the way; property against property.
        for op in orderings {
            let value = int(0...60)
            atoms.append(("dog.age \(op) \(value / 5)", { compare(dog($0.dog)?.age, op, value / 5) }))
            atoms.append(("friend.age \(op) \(value)", { compare(friend($0)?.age, op, value) }))
            atoms.append(("friend.friend.age \(op) \(value)", { compare(friend($0).flatMap(friend)?.age, op, value) }))
            atoms.append(("friend.friend.dog.age \(op) \(value / 5)", { compare(dog(friend($0).flatMap(friend)?.dog)?.age, op, value / 5) }))
            atoms.append(("age \(op) friend.age", { person in friend(person).map { compare(person.age, op, $0.age) } ?? false }))
        }
        atoms.append(("dog.weight == nil", { dog($0.dog)?.weight == nil }))
        atoms.append(("friend.friend == nil", { friend($0)?.friend == nil }))
        atoms.append(("friend.dog.name BEGINSWITH[c] 'f'", { text(dog(friend($0)?.dog)?.name, "BEGINSWITH", "f", "c") }))
        atoms.append(("friend.friend.friend.name ==[cd] 'emile'", { text(friend($0).flatMap(friend).flatMap(friend)?.name, "==", "emile", "cd") }))
        atoms.append(("ANY dogs.name ==[d] 'Eclair'", { $0.dogs.contains { text(model.dogs[$0].name, "==", "Eclair", "d") } }))
        atoms.append(("ANY dogs.age == age", { person in person.dogs.contains { model.dogs[$0].age == person.age } }))

        // SUBQUERY: the number of list elements matching a predicate of their own.
        for op in orderings {
            let (age, count) = (int(0...12), int(0...2))
            atoms.append(("SUBQUERY(dogs, $d, $d.age > \(age) AND $d.name BEGINSWITH[c] 'f').@count \(op) \(count)", { person in
                let matching = person.dogs.filter { model.dogs[$0].age > age && text(model.dogs[$0].name, "BEGINSWITH", "f", "c") }
                return compare(Int64(matching.count), op, count)
            }))
        }
        return atoms
    }

    /// A database holding `model`, and the context of a read at its one version.
    static func context(_ model: QueryReferenceModel) throws -> (Database, ReadTransaction, QueryContext, Table) {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let catalog = try model.write(to: write)
        try write.commit()
        let read = try database.beginRead()
        return (database, read, QueryContext(reader: read, catalog: catalog), catalog.tables["Person"]!)
    }

    /// The failures of `text` against the reference's `expected` keys: the keys, the count and
    /// each object's own match.
    static func check(_ text: String, expected: [UInt64], _ queries: QueryContext, _ table: Table, count people: Int) throws {
        let plan = try queries.bind(try QueryParser.parse(text), to: table)
        let keys = try queries.evaluator.matchingKeys(plan, in: table)
        #expect(keys == expected, "\(text): \(keys.count) keys, the reference finds \(expected.count); extra \(Set(keys).subtracting(expected).sorted().prefix(5)), missing \(Set(expected).subtracting(keys).sorted().prefix(5))")
        #expect(try queries.count(matching: plan, in: table) == expected.count, "\(text): count")
        let each = try (0..<UInt64(people)).filter { try queries.evaluator.matches(plan, key: $0, in: table) }
        #expect(each == expected, "\(text): object by object")
    }

    /// Every atom alone.
    @Test(arguments: [1, 2, 3] as [UInt64]) func everyOperatorAgreesWithTheReference(seed: UInt64) throws {
        let model = QueryReferenceModel(seed: seed)
        let (database, read, queries, table) = try Self.context(model)
        defer { withExtendedLifetime((database, read)) {} }
        var random = SplitMix64(seed: seed &* 0x9E37_79B9)
        let atoms = Self.atoms(model, &random)
        var decisive = 0  // atoms that keep some objects and drop others: a wrong one would show
        for atom in atoms {
            let expected = model.people.filter(atom.test).map { UInt64($0.id) }
            if !expected.isEmpty && expected.count < model.people.count { decisive += 1 }
            try Self.check(atom.text, expected: expected, queries, table, count: model.people.count)
        }
        #expect(atoms.count > 250 && decisive * 10 > atoms.count * 7, "\(decisive) of \(atoms.count) atoms decide something")
    }

    /// Random combinations with AND, OR and NOT, which take the evaluator's other paths (index
    /// candidates under an AND, column scans of conjunctions, early exits).
    @Test(arguments: [4, 5] as [UInt64]) func combinationsAgreeWithTheReference(seed: UInt64) throws {
        let model = QueryReferenceModel(seed: seed)
        let (database, read, queries, table) = try Self.context(model)
        defer { withExtendedLifetime((database, read)) {} }
        var random = SplitMix64(seed: seed)
        let atoms = Self.atoms(model, &random)
        func predicate(depth: Int) -> Atom {
            if depth == 0 || Int.random(in: 0..<3, using: &random) == 0 { return atoms.randomElement(using: &random)! }
            let (a, b) = (predicate(depth: depth - 1), predicate(depth: depth - 1))
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return ("(\(a.text)) AND (\(b.text))", { a.test($0) && b.test($0) })
            case 1: return ("(\(a.text)) OR (\(b.text))", { a.test($0) || b.test($0) })
            default: return ("NOT (\(a.text))", { !a.test($0) })
            }
        }
        for _ in 0..<300 {
            let combined = predicate(depth: 3)
            try Self.check(combined.text, expected: model.people.filter(combined.test).map { UInt64($0.id) }, queries, table,
                           count: model.people.count)
        }
    }

    /// Operators a property's type does not support are refused when binding, with a
    /// ``QueryError`` naming the property, not evaluated as false.
    @Test(arguments: ["name < 'a'", "flag > true", "dog > 1", "age BEGINSWITH 'a'", "score CONTAINS 'x'", "age ==[c] 3",
                      "scores.@avg.age > 1", "ALL age > 3", "nope == 1", "dog.nope == 1", "age.name == 1",
                      "SUBQUERY(age, $a, $a > 1).@count > 0", "dogs == nil", "born == 'x'", "age BETWEEN {1}"])
    func unsupportedOperatorsAreRefusedWhenBinding(predicate: String) throws {
        let model = QueryReferenceModel(seed: 9, people: 4, dogs: 2)
        let (database, read, queries, table) = try Self.context(model)
        defer { withExtendedLifetime((database, read)) {} }
        let error = #expect(throws: QueryError.self) { try queries.bind(try QueryParser.parse(predicate), to: table) }
        #expect(error.map { !$0.message.isEmpty } == true)
    }
}
