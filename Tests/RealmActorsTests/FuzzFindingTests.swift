import Foundation
import Testing
import RealmActors
import RealmRuntime
import RealmTestSupport

/// Inputs the fuzz harnesses (`Fuzz/Harnesses`, `Scripts/fuzz.sh`) found, each fed through the
/// public API as a user would meet it. Each input is also in the harness's seed corpus,
/// `Fuzz/Corpus/<target>/`, where the tests read it.
@Suite struct FuzzFindingTests {
    /// `Fuzz/Corpus/<target>/<name>` in this package.
    static func corpusFile(_ target: String, _ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/\(target)/\(name)")
    }

    /// The realm file `name` of the `file` corpus, copied into `directory` and opened read-only
    /// with no model classes, as `realm-inspect` opens a file.
    static func openCorpusRealm(_ name: String, in directory: TemporaryDirectory) throws -> Realm {
        try openRealm([UInt8](Data(contentsOf: corpusFile("file", name))), in: directory)
    }

    /// A realm file of `bytes` (an edited copy of a seed), written into `directory` and opened
    /// as ``openCorpusRealm(_:in:)`` opens one.
    static func openRealm(_ bytes: [UInt8], in directory: TemporaryDirectory) throws -> Realm {
        let url = directory.url.appendingPathComponent("fuzzed.realm")
        try Data(bytes).write(to: url)
        var configuration = Realm.Configuration(fileURL: url, readOnly: true)
        configuration.objectTypes = nil
        return try Realm(configuration: configuration)
    }

    /// `file`: one digit of the schema record changed (and the page resealed) so that a table's
    /// tree is tree 1, the metadata tree, whose pages are value leaves. Every page is sound, so
    /// the file opened and the integrity check passed, and iterating the table then trapped
    /// ("page 4 is not a table page") — a server that checks a file before opening it, as the
    /// Files article says, would still have crashed on it. Opening checks the schema record now.
    @Test func aTableOnTheMetadataTreeIsRefusedAtOpen() throws {
        let directory = try TemporaryDirectory()
        let error = #expect(throws: Realm.Error.self) {
            _ = try Self.openCorpusRealm("schema-table-on-the-metadata-tree.realm", in: directory)
        }
        #expect(error?.code == .invalidDatabase)
        #expect(error?.localizedDescription.contains("the table of 'FuzzPart' is on tree 1, which holds something else") == true)
    }

    /// The integrity check's half of that fix: a table leaf whose kind byte says "value leaf"
    /// (resealed) is sound page by page, and a value tree's walk would take it; the check knows
    /// from the schema that the tree holds a table.
    @Test func aTableLeafMarkedAsAValueLeafFailsTheIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        var bytes = [UInt8](try Data(contentsOf: Self.corpusFile("file", "populated.realm")))
        let pageSize = PageLayout.pageSize
        let page = try #require((2..<(bytes.count / pageSize)).first { bytes[$0 * pageSize + PageLayout.kindOffset] == PageKind.cluster.rawValue
            && bytes[$0 * pageSize + PageLayout.flagsOffset] == 0 })
        bytes[page * pageSize + PageLayout.kindOffset] = PageKind.leaf.rawValue
        bytes.withUnsafeMutableBytes { PageChecksum.seal($0.baseAddress! + page * pageSize, length: pageSize) }
        let realm = try Self.openRealm(bytes, in: directory)
        let error = #expect(throws: Realm.Error.self) { try realm.checkIntegrity() }
        #expect(error?.localizedDescription.contains("page \(page) has kind 3, expected [\"cluster\", \"inner\"]") == true)
    }

    /// `log`: a record whose image of the schema record put a table on tree 0, which no version
    /// has (the harness reseals what it mutates). Replayed, the file opened and passed the
    /// integrity check, and iterating the table trapped ("No tree with id 0"). Here the same
    /// record is written into the data file directly: opening refuses it.
    @Test func aTableOnATreeTheVersionDoesNotHaveIsRefusedAtOpen() throws {
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("missing-tree.realm")
        var bytes = [UInt8](try Data(contentsOf: Self.corpusFile("file", "populated.realm")))
        let marker = Array(#""tree":"#.utf8)
        let at = try #require((0..<(bytes.count - marker.count - 2)).first { offset in
            bytes[offset..<(offset + marker.count)].elementsEqual(marker) && bytes[offset + marker.count + 1] == UInt8(ascii: "}")
        })
        bytes[at + marker.count] = UInt8(ascii: "0")
        // Reseal the page or overflow run holding the record.
        let pageSize = PageLayout.pageSize
        var page = at / pageSize
        while bytes[page * pageSize + PageLayout.kindOffset] != PageKind.overflow.rawValue
            && bytes[page * pageSize + PageLayout.kindOffset] != PageKind.leaf.rawValue { page -= 1 }
        let run = bytes[page * pageSize + PageLayout.kindOffset] == PageKind.overflow.rawValue
            ? Int(bytes[page * pageSize + PageLayout.auxOffset]) : 1
        bytes.withUnsafeMutableBytes { PageChecksum.seal($0.baseAddress! + page * pageSize, length: run * pageSize) }
        try Data(bytes).write(to: url)
        var configuration = Realm.Configuration(fileURL: url, readOnly: true)
        configuration.objectTypes = nil
        let error = #expect(throws: Realm.Error.self) { _ = try Realm(configuration: configuration) }
        #expect(error?.code == .invalidDatabase)
        #expect(error?.localizedDescription.contains("is on tree 0, which does not exist") == true, "\(String(describing: error))")
    }

    /// `file`: a list of links (`FuzzItem.parts`) holding an object key its target table lacks.
    /// Every page is sound, so the file passed the integrity check, and reading the list's
    /// objects trapped ("Object has been deleted or invalidated"). Both checks follow links now.
    @Test func aLinkToAMissingObjectFailsTheIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        let realm = try Self.openCorpusRealm("link-to-a-missing-object.realm", in: directory)
        let expected = "'FuzzItem.parts' of object 2 links to object 8246725335924604928 of 'FuzzPart', which does not exist"
        let whole = #expect(throws: Realm.Error.self) { try realm.checkIntegrity() }
        #expect(whole?.code == .invalidDatabase)
        #expect(whole?.localizedDescription.contains(expected) == true, "\(String(describing: whole))")
        let some = #expect(throws: Realm.Error.self) { try realm.checkIntegrity(ofClasses: ["FuzzItem"]) }
        #expect(some?.localizedDescription.contains(expected) == true, "\(String(describing: some))")
    }

    /// A table leaf one of whose columns (a `Double` property, resealed) says it holds integers:
    /// sound page by page, but readers take the kind from the schema and would read the wrong
    /// bytes. The integrity check compares every leaf's columns with the schema.
    @Test func aColumnOfAnotherKindThanTheSchemaFailsTheIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        var bytes = [UInt8](try Data(contentsOf: Self.corpusFile("file", "populated.realm")))
        let pageSize = PageLayout.pageSize
        // The first single-page table leaf with a double column (descriptor: kind, width, …).
        let (page, column) = try #require((2..<(bytes.count / pageSize)).lazy.compactMap { page -> (Int, Int)? in
            let base = page * pageSize
            guard bytes[base + PageLayout.kindOffset] == PageKind.cluster.rawValue, bytes[base + PageLayout.flagsOffset] == 0 else { return nil }
            let columns = Int(bytes[base + 26]) | Int(bytes[base + 27]) << 8
            return (0..<columns).first { bytes[base + 32 + 8 * $0] == ColumnSpec.Kind.double.rawValue }.map { (page, $0) }
        }.first)
        bytes[page * pageSize + 32 + 8 * column] = ColumnSpec.Kind.int.rawValue  // width 8 is a valid integer width
        bytes.withUnsafeMutableBytes { PageChecksum.seal($0.baseAddress! + page * pageSize, length: pageSize) }
        let realm = try Self.openRealm(bytes, in: directory)
        let error = #expect(throws: Realm.Error.self) { try realm.checkIntegrity() }
        #expect(error?.localizedDescription.contains("table leaf page \(page) holds column \(column) as kind 1 width 8, but its table has double") == true,
                "\(String(describing: error))")
    }

    /// The seeds themselves pass the check (so the test above fails for its damage alone).
    @Test func theSeedRealmsPassTheIntegrityCheck() throws {
        for name in ["empty.realm", "populated.realm"] {
            let directory = try TemporaryDirectory()
            let realm = try Self.openCorpusRealm(name, in: directory)
            #expect(throws: Never.self) { try realm.checkIntegrity() }
        }
    }
}
