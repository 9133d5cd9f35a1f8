import Foundation
import RealmActors
import Testing

/// The damage corpus on encrypted copies: the same seeded-random damage to an encrypted realm,
/// opened with its key — where a damaged page fails its authentication tag and reads as zeros —
/// and with a wrong key.
///
/// What must hold: with the key, every command exits 0 or 1 (1 with a message naming the
/// damaged page), never a signal or a hang; opening through the API throws a `Realm.Error` or
/// succeeds, and a file that passes `checkIntegrity()` dumps whole. With a wrong key, opening
/// throws a `Realm.Error` and every command exits 1 with a message — damaged or not.
extension DamageCorpusTests {
    /// Computed, not a `static let`: LeakSanitizer reports a `Data` a global holds (see
    /// Scripts/lsan-suppressions.txt).
    static var encryptionKey: Data { Data((0..<64).map { UInt8(($0 * 13 + 7) & 0xFF) }) }
    static var encryptedVariantCount: Int { variants(default: 12) }

    /// Opens `path` with `key` through the API: nil if it opened (and, if it passed
    /// `checkIntegrity()`, whether it did), or the error the open threw.
    static func openOutcome(_ path: String, key: Data) -> Result<Bool, any Error> {
        do {
            let realm = try InspectorWorkspace.openReadOnly(path, encryptionKey: key, objectTypes: objectTypes)
            return .success((try? realm.checkIntegrity()) != nil)
        } catch {
            return .failure(error)
        }
    }

    @Test func everyCommandSurvivesEveryDamagedEncryptedVariant() throws {
        let base = workspace.path("base.realm")
        try Self.makeRealm(at: base, encryptionKey: Self.encryptionKey)
        let original = try Data(contentsOf: URL(fileURLWithPath: base))
        let wrongKey = Data(Self.encryptionKey.reversed())
        let keyFile = try workspace.keyFile(Self.encryptionKey, named: "key.bin"), wrongKeyFile = try workspace.keyFile(wrongKey, named: "wrong.bin")

        var failures: [String] = []
        var unnamed: [String] = []
        var passedCheck = 0
        for variant in 0..<Self.encryptedVariantCount {
            let (scratch, path, what) = try damagedCopy(of: original, variant: variant, in: "e\(variant)")
            let context = "variant \(variant) (\(what))"

            // The API, with the key and with a wrong one.
            let opened = Self.openOutcome(path, key: Self.encryptionKey)
            if case .failure(let error) = opened, !(error is Realm.Error) { failures.append("\(context): the open threw \(type(of: error)): \(error)") }
            switch Self.openOutcome(path, key: wrongKey) {
            case .success: failures.append("\(context): opened with a wrong key")
            case .failure(let error): if !(error is Realm.Error) { failures.append("\(context): a wrong key threw \(type(of: error)): \(error)") }
            }

            for arguments in try Self.commands(path: path, scratch: scratch, options: ["--encryption-key-file", keyFile]) {
                let outcome = try workspace.run(arguments, timeout: Self.timeout)
                if let problem = Self.misbehaviour(outcome) { failures.append("\(context), \(arguments[0]): \(problem)") }
                if outcome.status == 1, !outcome.standardError.contains("page"), !["load", "drop-slot", "resync-slot"].contains(arguments[0]) {
                    unnamed.append("\(context), \(arguments[0]): \(outcome.standardError.prefix(200))")
                }
                // A file that passes the check reads whole: `dump` checks, then reads every object.
                if arguments[0] == "dump", case .success(true) = opened {
                    passedCheck += 1
                    if outcome.status != 0 { failures.append("\(context): passed checkIntegrity() but dump exited \(outcome.status): \(outcome.standardError.prefix(200))") }
                }
            }
            for arguments in [["info", path], ["count", path, "DCOwner"], ["check", path], ["dump", path],
                              ["recover", path, scratch.appendingPathComponent("wrong-key.realm").path]] {
                let outcome = try workspace.run(arguments + ["--encryption-key-file", wrongKeyFile], timeout: Self.timeout)
                if let problem = Self.misbehaviour(outcome) { failures.append("\(context), \(arguments[0]) with a wrong key: \(problem)") }
                if outcome.status != 1 { failures.append("\(context), \(arguments[0]) with a wrong key: exit \(outcome.status)") }
            }
            try? FileManager.default.removeItem(at: scratch)
        }
        print("encrypted damage corpus: \(Self.encryptedVariantCount) variants, \(passedCheck) passed the check, \(failures.count) failures, "
              + "\(unnamed.count) exits with 1 named no page")
        for failure in (failures + unnamed).prefix(40) { print("  " + failure) }
        #expect(unnamed.isEmpty, "\(unnamed.count) exits with 1 named no page; the first: \(unnamed.first ?? "")")
        if !failures.isEmpty { Issue.record("\(failures.count) failures; the first: \(failures.prefix(5).joined(separator: "; "))") }
    }
}
