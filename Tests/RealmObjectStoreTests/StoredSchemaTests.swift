import Foundation
import Testing
import RealmObjectStore

/// The schema record a file opens with: decoded and checked before any table is built from it.
/// The inputs are the fuzz harness `values`' (`Fuzz/Corpus/values/`, its first byte selects the
/// decoder and is dropped here).
@Suite struct StoredSchemaTests {
    static func corpusRecord(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/values/\(name)")
        return Array(try Data(contentsOf: url).dropFirst())
    }

    @Test func theSeedRecordDecodesIntoTables() throws {
        let schema = try StoredSchema.decode(try Self.corpusRecord("schema.json"))
        #expect(SchemaCatalog(schema).tables.keys.sorted() == ["FuzzBox", "FuzzItem", "FuzzLabel", "FuzzPart"])
    }

    /// Found by realm-fuzz `values`: a record naming a class twice trapped in `SchemaCatalog`
    /// ("Duplicate values for key: 'FuzzBox'"), which every open of such a file reaches.
    @Test func aClassNamedTwiceIsADamagedFile() throws {
        let error = #expect(throws: StorageError.self) { try StoredSchema.decode(try Self.corpusRecord("schema-class-twice.json")) }
        #expect(error?.code == .invalidDatabase)
        #expect(error?.message.contains("appears twice") == true)
    }

    @Test func twoTablesOnOneTreeOrTheMetadataTreeAreADamagedFile() throws {
        let seed = try StoredSchema.decode(try Self.corpusRecord("schema.json"))
        for tree in [seed.tables[0].tree, StoredSchema.metadataTree] {
            var schema = seed
            schema.tables[1].tree = tree
            let error = #expect(throws: StorageError.self) { try StoredSchema.decode(Array(try JSONEncoder().encode(schema))) }
            #expect(error?.message.contains("is on tree \(tree), which holds something else") == true)
        }
    }

    @Test func bytesThatAreNotARecordAreADamagedFile() {
        let error = #expect(throws: StorageError.self) { try StoredSchema.decode(Array("{\"tables\":".utf8)) }
        #expect(error?.code == .invalidDatabase)
    }
}
