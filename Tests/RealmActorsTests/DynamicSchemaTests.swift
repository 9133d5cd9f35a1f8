import Foundation
import Testing
import RealmActors

/// Classes described at run time (`Realm.addObjectSchemas`), with no Swift class in the program,
/// written and read through the dynamic API only — nested values for their links and embedded
/// objects included, as a loader of data of an unknown schema (`realm-inspect load`) writes them.
@Suite struct DynamicSchemaTests {
    static let shelter = [
        ObjectSchema(className: "DSAddress", properties: [
            Property(name: "city", type: .string),
            Property(name: "zip", type: .string, isOptional: true),
        ], isEmbedded: true),
        ObjectSchema(className: "DSDog", properties: [
            Property(name: "id", type: .int, isPrimary: true),
            Property(name: "name", type: .string, isIndexed: true),
            Property(name: "home", type: .object, objectClassName: "DSAddress", isOptional: true),
            Property(name: "friends", type: .object, objectClassName: "DSDog", isArray: true),
            Property(name: "toy", type: .object, objectClassName: "DSToy", isOptional: true),
            Property(name: "extra", type: .any),
            Property(name: "scores", type: .double, isOptional: true, isMap: true),
        ]),
        ObjectSchema(className: "DSToy", properties: [Property(name: "label", type: .string)],
                     computedProperties: [Property(name: "owners", type: .linkingObjects, objectClassName: "DSDog", linkOriginPropertyName: "toy")]),
    ]

    static func realm(_ name: String) throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "dynamic-schema-\(name)-\(UUID())"))
    }

    @Test func classesDescribedAtRunTimeStoreNestedValues() throws {
        let realm = try Self.realm("nested")
        try realm.write {
            try realm.addObjectSchemas(Self.shelter)
            let rex = realm.dynamicCreate("DSDog", value: ["id": 1, "name": "Rex", "home": ["city": "Oslo"], "toy": ["label": "ball"],
                                                          "scores": ["a": 1.5, "b": nil]])
            realm.dynamicCreate("DSDog", value: ["id": 2, "name": "Fido", "friends": [rex], "home": ["city": "Bergen", "zip": "5003"],
                                                 "extra": AnyRealmValue.object(rex)])
            // A dynamic setter takes nested values too.
            rex["home"] = ["city": "Tromsø"]
            rex["toy"] = ["label": "rope"]
        }
        #expect(realm.schema["DSDog"]?.primaryKeyProperty?.name == "id")
        #expect(realm.schema["DSAddress"]?.isEmbedded == true)
        let dogs = realm.dynamicObjects("DSDog")
        #expect(dogs.count == 2)
        let rex = try #require(realm.dynamicObject(ofType: "DSDog", forPrimaryKey: 1))
        #expect((rex["home"] as? DynamicObject)?["city"] as? String == "Tromsø")
        #expect((rex["toy"] as? DynamicObject)?["label"] as? String == "rope")
        #expect((rex["scores"] as? [String: Double?])?["a"] == 1.5)
        let fido = try #require(realm.dynamicObject(ofType: "DSDog", forPrimaryKey: 2))
        #expect((fido["home"] as? DynamicObject)?["zip"] as? String == "5003")
        #expect((fido["friends"] as? [Any])?.count == 1)
        #expect((fido["extra"] as? DynamicObject)?["name"] as? String == "Rex")
        #expect(realm.dynamicObjects("DSToy").count == 2)  // "ball" then "rope": a link to a new toy each time
        #expect(realm.dynamicObjects("DSToy").filter("owners.@count == 1").count == 1)
        #expect(realm.dynamicObjects("DSDog").filter("home.city == 'Bergen'").count == 1)
    }

    @Test func addingTheSameClassesAgainChangesNothing() throws {
        let realm = try Self.realm("again")
        try realm.write { try realm.addObjectSchemas(Self.shelter) }
        let schema = realm.schema
        try realm.write { try realm.addObjectSchemas(Self.shelter) }
        #expect(realm.schema == schema)
    }

    @Test func descriptionsThatCannotBeStoredThrowAndAddNothing() throws {
        let realm = try Self.realm("bad")
        try realm.write { try realm.addObjectSchemas([Self.shelter[0]]) }
        let bad: [(String, [ObjectSchema])] = [
            ("link to nowhere", [ObjectSchema(className: "X", properties: [Property(name: "a", type: .object, objectClassName: "Nowhere", isOptional: true)])]),
            ("double primary key", [ObjectSchema(className: "X", properties: [Property(name: "a", type: .double, isPrimary: true)])]),
            ("bool primary key", [ObjectSchema(className: "X", properties: [Property(name: "a", type: .bool, isPrimary: true)])]),
            ("date primary key", [ObjectSchema(className: "X", properties: [Property(name: "a", type: .date, isPrimary: true)])]),
            ("duplicate property", [ObjectSchema(className: "X", properties: [Property(name: "a", type: .int), Property(name: "a", type: .int)])]),
            ("required to-one link", [ObjectSchema(className: "X", properties: [Property(name: "a", type: .object, objectClassName: "X")])]),
            ("empty class name", [ObjectSchema(className: "", properties: [])]),
            ("changed class", [ObjectSchema(className: "DSAddress", properties: [Property(name: "city", type: .int)], isEmbedded: true)]),
            ("origin not a link", [ObjectSchema(className: "X", properties: [Property(name: "a", type: .int)],
                                                computedProperties: [Property(name: "o", type: .linkingObjects, objectClassName: "X", linkOriginPropertyName: "a")])]),
            // Found by realm-fuzz load: trapped building the catalog.
            ("class described twice", [ObjectSchema(className: "X", properties: []), ObjectSchema(className: "X", properties: [Property(name: "a", type: .int)])]),
        ]
        for (name, schemas) in bad {
            realm.beginWrite()
            #expect(throws: Realm.Error.self, "\(name)") { try realm.addObjectSchemas(schemas) }
            realm.cancelWrite()
            #expect(realm.schema["X"] == nil, "\(name)")
        }
        #expect(realm.schema["DSAddress"]?.properties.first?.type == .string)
    }
}
