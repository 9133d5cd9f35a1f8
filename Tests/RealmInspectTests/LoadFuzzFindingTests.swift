import Foundation
import Testing

/// Dumps the fuzz harness `load` found (`Fuzz/Corpus/load/`), loaded by the built
/// `realm-inspect` as a user would: each must exit 1 with a message and leave no file.
@Suite struct LoadFuzzFindingTests {
    static func corpusFile(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/Corpus/load/\(name)").path
    }

    /// A header describing a class twice trapped in `Realm.addObjectSchemas` (a duplicate key in
    /// the catalog it builds): the throwing API now throws.
    @Test func aClassDescribedTwiceIsRefused() throws {
        let workspace = try InspectorWorkspace()
        let target = workspace.path("loaded.realm")
        let outcome = try workspace.run("load", Self.corpusFile("class-twice.dump"), target)
        #expect(!outcome.crashed && outcome.status == 1, "\(outcome.status) \(outcome.standardError)")
        #expect(outcome.standardError.contains("Class 'FuzzLabel' is described twice"), "\(outcome.standardError)")
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
