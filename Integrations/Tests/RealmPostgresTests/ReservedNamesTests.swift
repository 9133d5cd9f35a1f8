import RealmActors
import Testing
@testable import RealmPostgres

/// `ReservedNames`: each name the mapping cannot hold, and the names it can. (The realm refuses
/// class names past 57 bytes and property names past 63 itself, so the identifier limits are
/// checked here, on schemas no realm would open.)
@Suite struct ReservedNamesTests {
    static func objectSchema(_ className: String, _ properties: [String], primaryKey: String? = nil,
                             isEmbedded: Bool = false) -> ObjectSchema {
        ObjectSchema(className: className, properties: properties.map { Property(name: $0, type: .int, isPrimary: $0 == primaryKey) },
                     isEmbedded: isEmbedded)
    }

    @Test func eachReservedNameIsAProblem() {
        let sixtyFour = String(repeating: "é", count: 32)  // 32 characters, 64 bytes
        let sixtyThree = String(repeating: "é", count: 31) + "x"
        let cases: [(ObjectSchema, String)] = [
            (Self.objectSchema("Keyless", ["_realm_key"]), "class 'Keyless' has no primary key and a property '_realm_key'"),
            (Self.objectSchema("realm_replication_tables", ["id"], primaryKey: "id"), "named like the sink's own tables"),
            (Self.objectSchema("realm_replication_later", ["id"], primaryKey: "id"), "named like the sink's own tables"),
            (Self.objectSchema(sixtyFour, ["id"], primaryKey: "id"), "class '\(sixtyFour)' has a name of 64 bytes"),
            (Self.objectSchema("Wide", ["id", sixtyFour], primaryKey: "id"), "property 'Wide.\(sixtyFour)' has a name of 64 bytes"),
            (Self.objectSchema("Nul", ["id", "a\u{0}b"], primaryKey: "id"), "has a NUL character in its name"),
        ]
        for (objectSchema, expected) in cases {
            let problems = ReservedNames.problems(in: [objectSchema])
            #expect(problems.count == 1 && problems[0].contains(expected), "\(objectSchema.className): \(problems)")
        }
        let fine = [
            Self.objectSchema("Keyed", ["_realm_key", "other"], primaryKey: "other"),  // its key column is `other`
            Self.objectSchema("Embedded", ["_realm_key", sixtyFour], isEmbedded: true),  // no table: its properties are jsonb keys
            Self.objectSchema(sixtyThree, [sixtyThree, "realm_replication_progress"]),
            Self.objectSchema("Realm_Replication_Progress", ["id"]),  // quoted: another table than the sink's
        ]
        #expect(ReservedNames.problems(in: fine).isEmpty)
    }
}
