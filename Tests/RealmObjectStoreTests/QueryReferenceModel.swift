import Foundation
import RealmObjectStore
import RealmTestSupport

/// Seeded random people and dogs, written through the object store's `package` API and kept
/// beside it as plain Swift values, so that ``QueryReferenceTests`` can check every query the
/// evaluator answers against a brute-force evaluation of the same predicate over the values.
///
/// Schema (the property kinds the evaluator reads differently: an indexed int, an integer primary
/// key, optional doubles, floats, dates, decimals, object ids, optional bools, indexed and plain
/// strings, lists of ints, strings and links, to-one links to another class and to the same one,
/// linking objects):
///
///     Dog(name: String, age: Int, weight: Double?, owners: LinkingObjects<Person>.dog)
///     Person(id: Int (primary key), age: Int (indexed), score: Double?, ratio: Float, born: Date,
///            balance: Decimal128?, oid: ObjectId?, flag: Bool?, name: String? (indexed),
///            nick: String, scores: List<Int>, tags: List<String>, dog: Dog?, dogs: List<Dog>,
///            friend: Person?)
struct QueryReferenceModel {
    struct Dog {
        var name: String
        var age: Int64
        var weight: Double?
    }

    struct Person {
        var id: Int64
        var age: Int64
        var score: Double?
        var ratio: Float
        /// Seconds since 1970 (the `T` literal's epoch); stored as seconds since 2001.
        var born: Int64
        /// A decimal's (coefficient, exponent), nil for none; its value is ``balanceValue``.
        var balance: (Int64, Int)?
        var oid: [UInt8]?
        var flag: Bool?
        var name: String?
        var nick: String
        var scores: [Int64]
        var tags: [String]
        var dog: Int?
        var dogs: [Int]
        var friend: Int?

        var balanceValue: Double? { balance.map { Double($0.0) * pow(10, Double($0.1)) } }
    }

    static let names: [String?] = ["Ann", "ann", "Anne", "Åsa", "åsa", "Bob", "bobby", "BOB", "Émile", "emile", "Zoë", "zoe", "", nil]
    static let dogNames = ["Rex", "rex", "Fido", "Fifi", "Lassie", "Éclair", "Odie", ""]
    static let tagPool = ["red", "Red", "green", "blue", "élan", "Elan", ""]
    static let scorePool: [Double?] = [-1.5, 0, 2.25, 7.5, nil]
    static let ratioPool: [Float] = [0.25, 0.5, 1.75, -3]
    static let bornPool: [Int64] = [0, 86_400, 1_000_000_000, 1_600_000_000, -86_400]
    /// 1.50, 1.5 and 15E-1 are one value; 10E-1 is 1.
    static let balancePool: [(Int64, Int)?] = [(150, -2), (15, -1), (-2, 0), (10, -1), (325, -2), (0, 0), nil]
    static let oidPool: [[UInt8]?] = [Array(repeating: 1, count: 12), Array(0..<12), Array(repeating: 0xAB, count: 12), nil]

    var dogs: [Dog] = []
    var people: [Person] = []

    init(seed: UInt64, people count: Int = 160, dogs dogCount: Int = 24) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<dogCount {
            dogs.append(Dog(name: Self.dogNames.randomElement(using: &random)!, age: Int64.random(in: 0...12, using: &random),
                            weight: Bool.random(using: &random) ? nil : Double(Int.random(in: 1...40, using: &random)) / 4))
        }
        for index in 0..<count {
            func some<T>(_ pool: [T]) -> T { pool.randomElement(using: &random)! }
            people.append(Person(
                id: Int64(index), age: Int64.random(in: 0..<60, using: &random), score: some(Self.scorePool),
                ratio: some(Self.ratioPool), born: some(Self.bornPool), balance: some(Self.balancePool),
                oid: some(Self.oidPool), flag: some([true, false, nil]), name: some(Self.names),
                nick: some(Self.names) ?? "nil",
                scores: (0..<Int.random(in: 0...4, using: &random)).map { _ in Int64.random(in: -2...9, using: &random) },
                tags: (0..<Int.random(in: 0...3, using: &random)).map { _ in some(Self.tagPool) },
                dog: Int.random(in: 0..<4, using: &random) == 0 ? nil : Int.random(in: 0..<dogCount, using: &random),
                dogs: (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0..<dogCount, using: &random) },
                friend: Int.random(in: 0..<5, using: &random) == 0 ? nil : Int.random(in: 0..<count, using: &random)))
        }
    }

    /// The people whose `dog` is dog `index` (its linking objects `owners`).
    func owners(of index: Int) -> [Person] { people.filter { $0.dog == index } }

    // MARK: Writing it

    static let dogSchema = ObjectSchemaInfo(
        className: "Dog",
        properties: [PropertyInfo(name: "name", kind: .string), PropertyInfo(name: "age", kind: .int),
                     PropertyInfo(name: "weight", kind: .double, isOptional: true)],
        linkingObjects: [LinkingObjectsInfo(name: "owners", originClass: "Person", originProperty: "dog")])

    static let personSchema = ObjectSchemaInfo(className: "Person", properties: [
        PropertyInfo(name: "id", kind: .int, isPrimaryKey: true),
        PropertyInfo(name: "age", kind: .int, isIndexed: true),
        PropertyInfo(name: "score", kind: .double, isOptional: true),
        PropertyInfo(name: "ratio", kind: .float),
        PropertyInfo(name: "born", kind: .date),
        PropertyInfo(name: "balance", kind: .decimal128, isOptional: true),
        PropertyInfo(name: "oid", kind: .objectId, isOptional: true),
        PropertyInfo(name: "flag", kind: .bool, isOptional: true),
        PropertyInfo(name: "name", kind: .string, isOptional: true, isIndexed: true),
        PropertyInfo(name: "nick", kind: .string),
        PropertyInfo(name: "scores", kind: .int, collection: .list),
        PropertyInfo(name: "tags", kind: .string, collection: .list),
        PropertyInfo(name: "dog", kind: .object, isOptional: true, objectClassName: "Dog"),
        PropertyInfo(name: "dogs", kind: .object, objectClassName: "Dog", collection: .list),
        PropertyInfo(name: "friend", kind: .object, isOptional: true, objectClassName: "Person"),
    ])

    static func text(_ string: String?) -> ColumnValue { string.map { .bytes(Array($0.utf8)) } ?? .null }

    /// The 16 stored bytes of `coefficient × 10^exponent` (BID, little-endian).
    static func decimal(_ coefficient: Int64, exponent: Int) -> ColumnValue {
        let bits = (coefficient < 0 ? UInt128(1) << 127 : 0) | UInt128(exponent + DecimalEncoding.exponentBias) << 113
            | UInt128(coefficient.magnitude)
        return .fixed((0..<16).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) })
    }

    static func links(_ keys: [Int]) -> ColumnValue { .bytes(PackedCollection.encode(keys.map { .int(Int64($0)) })) }

    /// Creates the two tables and writes every object (dog `i` has key `i`, person `i` key `i`);
    /// returns the schema.
    func write(to write: WriteTransaction) throws -> SchemaCatalog {
        let tables = try [Self.dogSchema, Self.personSchema].map { try write.createTable($0) }
        let catalog = SchemaCatalog(StoredSchema(version: 1, tables: tables))
        let dogTable = catalog.tables["Dog"]!, personTable = catalog.tables["Person"]!
        for (key, dog) in dogs.enumerated() {
            try write.insertObject(into: dogTable, key: UInt64(key), values: [Self.text(dog.name), .int(dog.age), dog.weight.map { .double($0) } ?? .null])
        }
        for person in people {
            let values: [ColumnValue] = [
                .int(person.id), .int(person.age), person.score.map { .double($0) } ?? .null, .float(person.ratio),
                .double(Double(person.born - 978_307_200)), person.balance.map { Self.decimal($0.0, exponent: $0.1) } ?? .null,
                person.oid.map { .fixed($0) } ?? .null, person.flag.map { .bool($0) } ?? .null, Self.text(person.name),
                Self.text(person.nick), .bytes(PackedCollection.encode(person.scores.map { .int($0) })),
                .bytes(PackedCollection.encode(person.tags.map { Self.text($0) })),
                person.dog.map { .int(Int64($0)) } ?? .null, Self.links(person.dogs),
                person.friend.map { .int(Int64($0)) } ?? .null,
            ]
            let key = try write.newObjectKey(in: personTable, values: values)
            try write.insertObject(into: personTable, key: key, values: values)
        }
        return catalog
    }
}

/// How Realm defines each comparison, written out plainly over Swift values: the reference the
/// evaluator is checked against. Deliberately naive (no folding shortcuts, no indexes, no column
/// scans) and independent of the evaluator's code.
enum QueryReference {
    /// `a op b` where nil equals only nil and is never ordered.
    static func compare<T: Comparable>(_ a: T?, _ op: String, _ b: T?) -> Bool {
        switch op {
        case "==": return a == b
        case "!=": return a != b
        default:
            guard let a, let b else { return false }
            switch op {
            case "<": return a < b
            case "<=": return a <= b
            case ">": return a > b
            case ">=": return a >= b
            default: fatalError("not an ordering operator: \(op)")
            }
        }
    }

    /// `string` folded as `[c]` (lower case) and `[d]` (canonical decomposition without its
    /// combining marks) ask.
    static func fold(_ string: String, _ options: String) -> [Unicode.Scalar] {
        var folded = string
        if options.contains("c") { folded = folded.lowercased() }
        if options.contains("d") {
            folded = String(String.UnicodeScalarView(folded.decomposedStringWithCanonicalMapping.unicodeScalars
                .filter { $0.properties.generalCategory != .nonspacingMark }))
        }
        return Array(folded.unicodeScalars)
    }

    /// A string operator (`==`, `!=`, `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE`) with options;
    /// a nil string matches only `!=`.
    static func text(_ value: String?, _ op: String, _ needle: String, _ options: String) -> Bool {
        guard let value else { return op == "!=" }
        let (a, b) = (fold(value, options), fold(needle, options))
        switch op {
        case "==": return a == b
        case "!=": return a != b
        case "BEGINSWITH": return a.starts(with: b)
        case "ENDSWITH": return a.count >= b.count && Array(a.suffix(b.count)) == b
        case "CONTAINS": return b.isEmpty || (0...max(0, a.count - b.count)).contains { a.count >= b.count && Array(a[$0..<($0 + b.count)]) == b }
        case "LIKE": return like(a[...], b[...])
        default: fatalError("not a string operator: \(op)")
        }
    }

    /// `?` is one character, `*` any run: by recursion, the plain definition.
    static func like(_ text: ArraySlice<Unicode.Scalar>, _ pattern: ArraySlice<Unicode.Scalar>) -> Bool {
        guard let first = pattern.first else { return text.isEmpty }
        if first == "*" { return text.indices.contains { like(text[$0...], pattern.dropFirst()) } || like(text[text.endIndex...], pattern.dropFirst()) }
        guard let character = text.first, first == "?" || first == character else { return false }
        return like(text.dropFirst(), pattern.dropFirst())
    }

    /// `ANY`/`ALL`/`NONE` over `values` (ALL and NONE hold for none).
    static func quantify<T>(_ modifier: String, _ values: [T], _ test: (T) -> Bool) -> Bool {
        switch modifier {
        case "ANY": values.contains(where: test)
        case "ALL": values.allSatisfy(test)
        case "NONE": !values.contains(where: test)
        default: fatalError("not a modifier: \(modifier)")
        }
    }
}
