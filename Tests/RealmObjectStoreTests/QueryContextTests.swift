import Foundation
import Testing
import RealmObjectStore

/// Queries below the API: a query's keys, sorting (decimals included) and linking objects bound
/// from the stored schema alone, as the notifier and a dynamic handle run them.
@Suite struct QueryContextTests {
    /// Person(name, age, balance: decimal128, dog: Dog?); Dog(name, owners: LinkingObjects<Person>.dog).
    static func schema(in write: WriteTransaction) throws -> SchemaCatalog {
        let dog = ObjectSchemaInfo(className: "Dog", properties: [PropertyInfo(name: "name", kind: .string)],
                                   linkingObjects: [LinkingObjectsInfo(name: "owners", originClass: "Person", originProperty: "dog")])
        let person = ObjectSchemaInfo(className: "Person", properties: [
            PropertyInfo(name: "name", kind: .string),
            PropertyInfo(name: "age", kind: .int),
            PropertyInfo(name: "balance", kind: .decimal128, isOptional: true),
            PropertyInfo(name: "dog", kind: .object, isOptional: true, objectClassName: "Dog"),
        ])
        let tables = try [dog, person].map { try write.createTable($0) }
        return SchemaCatalog(StoredSchema(version: 1, tables: tables))
    }

    /// The 16 stored bytes of `coefficient × 10^exponent` (BID, little-endian).
    static func decimal(_ coefficient: Int64, exponent: Int) -> ColumnValue {
        let negative = coefficient < 0
        let bits = (negative ? UInt128(1) << 127 : 0) | UInt128(exponent + DecimalEncoding.exponentBias) << 113
            | UInt128(coefficient.magnitude)
        return .fixed((0..<16).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) })
    }

    static func text(_ string: String) -> ColumnValue { .bytes(Array(string.utf8)) }

    @Test func linkingObjectsBindFromTheStoredSchemaAndQueriesRunOnAVersion() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let catalog = try Self.schema(in: write)
        let dog = catalog.tables["Dog"]!, person = catalog.tables["Person"]!
        for (key, name) in ["Rex", "Fido", "Lassie"].enumerated() { try write.insertObject(into: dog, key: UInt64(key), values: [Self.text(name)]) }
        // (name, age, balance, dog): balances 1.50, -2, 1.5 (equal to the first), nil, 10E-1.
        let people: [(String, Int64, ColumnValue, UInt64?)] = [
            ("Ann", 30, Self.decimal(150, exponent: -2), 0), ("Bob", 20, Self.decimal(-2, exponent: 0), 0),
            ("Cy", 40, Self.decimal(15, exponent: -1), 1), ("Di", 20, .null, nil), ("Ed", 50, Self.decimal(10, exponent: -1), 1),
        ]
        for (key, (name, age, balance, dogKey)) in people.enumerated() {
            try write.insertObject(into: person, key: UInt64(key), values: [
                Self.text(name), .int(age), balance, dogKey.map { .int(Int64(bitPattern: $0)) } ?? .null,
            ])
        }
        let queries = QueryContext(writer: write, catalog: catalog)

        // Through linking objects, declared only in the stored schema.
        let expression = try QueryParser.parse("ANY owners.age >= 40", arguments: [])
        let plan = try queries.bind(expression, to: dog)
        #expect(try queries.keys(of: ObjectQuery(className: "Dog"), plan: plan, in: dog) == [1])
        #expect(try queries.objectKeys(of: .linkingObjects(targetClass: "Dog", targetKey: 0, originClass: "Person", property: "dog")) == [0, 1])
        #expect(throws: QueryError.self) { try queries.bind(try QueryParser.parse("ANY friends.age > 1", arguments: []), to: dog) }

        // Sorting: decimals numerically (1.5 == 1.50 keep key order), nil first; then by two keys.
        let byBalance = ObjectQuery(className: "Person", ordering: [.sort([SortKey(keyPath: "balance", ascending: true)])])
        #expect(try queries.keys(of: byBalance, plan: nil, in: person) == [3, 1, 4, 0, 2])
        let byAgeThenName = ObjectQuery(className: "Person", ordering: [.sort([SortKey(keyPath: "age", ascending: false), SortKey(keyPath: "name", ascending: true)])])
        #expect(try queries.keys(of: byAgeThenName, plan: nil, in: person) == [4, 2, 0, 1, 3])
        let byDogName = ObjectQuery(className: "Person", ordering: [.sort([SortKey(keyPath: "dog.name", ascending: true)])])
        #expect(try queries.keys(of: byDogName, plan: nil, in: person) == [3, 2, 4, 0, 1], "through a link: nil, Fido, Rex")
        // Distinct keeps the first object of each value, in base order.
        #expect(try queries.keys(of: ObjectQuery(className: "Person", ordering: [.distinct(["age"])]), plan: nil, in: person) == [0, 1, 2, 4])
        #expect(try queries.aggregate(.max, of: "age", keys: nil, in: person) == .int(50))
        #expect(try queries.count(matching: try queries.bind(try QueryParser.parse("age == 20", arguments: []), to: person), in: person) == 2)
    }

    @Test func aSchemaRecordWithoutLinkingObjectsReadsAsNone() throws {
        // A record written before linking objects were recorded.
        let json = #"{"className":"Dog","isEmbedded":false,"properties":[{"isIndexed":false,"isOptional":false,"isPrimaryKey":false,"kind":"string","name":"name"}]}"#
        let info = try JSONDecoder().decode(ObjectSchemaInfo.self, from: Data(json.utf8))
        #expect(info.linkingObjects.isEmpty && info.properties.map(\.name) == ["name"])
        let declared = ObjectSchemaInfo(className: "Dog", properties: info.properties,
                                        linkingObjects: [LinkingObjectsInfo(name: "owners", originClass: "Person", originProperty: "dog")])
        let roundTrip = try JSONDecoder().decode(ObjectSchemaInfo.self, from: JSONEncoder().encode(declared))
        #expect(roundTrip == declared)
    }
}
