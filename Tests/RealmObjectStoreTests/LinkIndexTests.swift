import Testing
import RealmObjectStore

/// The object store's link machinery, below the API: every property that can link is indexed by
/// target, deletes unlink through that index, and embedded objects follow their owner.
@Suite struct LinkIndexTests {
    /// Parent(name, child: Child?, children: List<Child>, byName: Map<String, Child?>, any: mixed,
    /// home: Address? (embedded)); Child(name); Address(street).
    static func schema(in write: WriteTransaction) throws -> SchemaCatalog {
        let child = ObjectSchemaInfo(className: "Child", properties: [PropertyInfo(name: "name", kind: .string)])
        let address = ObjectSchemaInfo(className: "Address", properties: [PropertyInfo(name: "street", kind: .string)], isEmbedded: true)
        let parent = ObjectSchemaInfo(className: "Parent", properties: [
            PropertyInfo(name: "name", kind: .string),
            PropertyInfo(name: "child", kind: .object, isOptional: true, objectClassName: "Child"),
            PropertyInfo(name: "children", kind: .object, objectClassName: "Child", collection: .list),
            PropertyInfo(name: "byName", kind: .object, isOptional: true, objectClassName: "Child", collection: .map),
            PropertyInfo(name: "any", kind: .mixed),
            PropertyInfo(name: "home", kind: .object, isOptional: true, objectClassName: "Address"),
        ])
        let tables = try [child, address, parent].map { try write.createTable($0) }
        return SchemaCatalog(StoredSchema(version: 1, tables: tables))
    }

    static func link(_ key: UInt64) -> ColumnValue { .int(Int64(bitPattern: key)) }
    static func list(_ keys: [UInt64]) -> ColumnValue { .bytes(PackedCollection.encode(keys.map(link))) }

    @Test func deletingAnObjectUnlinksItEverywhereAndCascadesToEmbeddedObjects() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let catalog = try Self.schema(in: write)
        let child = catalog.tables["Child"]!, parent = catalog.tables["Parent"]!, address = catalog.tables["Address"]!
        for key: UInt64 in 0..<3 { try write.insertObject(into: child, key: key, values: [.bytes([UInt8(key)])]) }
        try write.insertObject(into: address, key: 0, values: [.bytes(Array("Main".utf8))])
        let map = ColumnValue.bytes(PackedCollection.encode(PackedCollection.mapElements([("a", Self.link(1)), ("b", Self.link(2))])))
        let mixed = MixedValue.link(table: child.tree, key: 1).stored
        try write.insertObject(into: parent, key: 0, values: [
            .bytes(Array("P".utf8)), Self.link(1), Self.list([1, 2, 1, 0]), map, mixed, Self.link(0),
        ])
        let column = { (name: String) in parent.columns[name]! }
        let index = { (name: String) in try write.root(of: parent.indexes[column(name)]!) }
        for name in ["child", "children", "byName", "any"] {
            #expect(try write.linkingObjects(to: 1, of: child, from: parent, column: column(name), indexRoot: index(name)) == [0], "\(name)")
        }
        #expect(try write.linkingObjects(to: 0, of: child, from: parent, column: column("byName"), indexRoot: index("byName")) == [])

        #expect(try write.deleteObject(1, from: child, catalog: catalog))
        #expect(try write.value(column: column("child"), of: 0, in: parent) == .null)
        #expect(try write.value(column: column("children"), of: 0, in: parent) == Self.list([2, 0]), "every occurrence removed, order kept")
        let entries = try PackedCollection.entries(PackedCollection.decode(bytes(write.value(column: column("byName"), of: 0, in: parent))))
        #expect(entries.map(\.key) == ["a", "b"] && entries.map(\.value) == [.null, Self.link(2)], "the key stays, with nil")
        #expect(try write.value(column: column("any"), of: 0, in: parent) == .null)
        for name in ["child", "children", "byName", "any"] {
            #expect(try write.linkingObjects(to: 1, of: child, from: parent, column: column(name), indexRoot: index(name)).isEmpty, "\(name)")
        }

        // Replacing the embedded link deletes the old embedded object; deleting the owner, the new one.
        try write.insertObject(into: address, key: 1, values: [.bytes(Array("Second".utf8))])
        try write.setValue(Self.link(1), column: column("home"), of: 0, in: parent, catalog: catalog)
        #expect(try write.row(in: write.root(of: address.tree), key: 0) == nil)
        #expect(try write.deleteObject(0, from: parent, catalog: catalog))
        #expect(try write.count(of: address.tree) == 0)
        #expect(try write.count(of: child.tree) == 2, "non-embedded targets stay")
        try write.commit()
        _ = try database.verify()
    }

    @Test func propertiesThatCanLinkHaveAnIndexTree() {
        #expect(PropertyInfo(name: "a", kind: .object, isOptional: true, objectClassName: "X").hasIndexTree)
        #expect(PropertyInfo(name: "a", kind: .mixed).hasIndexTree)
        #expect(!PropertyInfo(name: "a", kind: .int, collection: .list).hasIndexTree)
        #expect(!PropertyInfo(name: "a", kind: .string, collection: .set).isIndexable)
    }

    @Test func linkRulesAreValidated() {
        let required = ObjectSchemaInfo(className: "A", properties: [PropertyInfo(name: "b", kind: .object, objectClassName: "B")])
        #expect(throws: StorageError.self) { try required.validate() }
        let optionalInList = ObjectSchemaInfo(className: "A", properties: [
            PropertyInfo(name: "b", kind: .object, isOptional: true, objectClassName: "B", collection: .list),
        ])
        #expect(throws: StorageError.self) { try optionalInList.validate() }
        let indexedList = ObjectSchemaInfo(className: "A", properties: [PropertyInfo(name: "b", kind: .int, isIndexed: true, collection: .list)])
        #expect(throws: StorageError.self) { try indexedList.validate() }
    }

    private func bytes(_ value: ColumnValue) -> [UInt8] {
        if case .bytes(let bytes) = value { return bytes }
        return []
    }
}
