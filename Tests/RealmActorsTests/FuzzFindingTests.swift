import Foundation
import Testing
import RealmActors

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
        let url = directory.url.appendingPathComponent("fuzzed.realm")
        try Data(contentsOf: corpusFile("file", name)).write(to: url)
        var configuration = Realm.Configuration(fileURL: url, readOnly: true)
        configuration.objectTypes = nil
        return try Realm(configuration: configuration)
    }

    /// `file`: one digit of the schema record changed (and the page resealed) so that a table's
    /// tree is tree 1, the metadata tree, whose pages are value leaves. Every page is sound, so
    /// the integrity check passed, and iterating the table then trapped ("page 4 is not a table
    /// page") — a server that checks a file before opening it, as the Files article says, would
    /// still have crashed on it. The check now knows which trees hold tables.
    @Test func aTableOnATreeOfValuesFailsTheIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        let realm = try Self.openCorpusRealm("schema-table-on-the-metadata-tree.realm", in: directory)
        let error = #expect(throws: Realm.Error.self) { try realm.checkIntegrity() }
        #expect(error?.code == .invalidDatabase)
        #expect(error?.localizedDescription.contains("page 4 has kind 3, expected [\"cluster\", \"inner\"]") == true)
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
