import Foundation
import RealmActors
import RealmStorage

/// The child that reads a file after a kill: opens it read-only (so the next writer meets the
/// file exactly as the crash left it), reads every object through the public API, prints the
/// ``ContentDigest``, and with `full` runs the integrity checks: the public API's (table columns,
/// links, and indexes against their tables) and the storage layer's of every page.
/// When the kill left commits that only the write-ahead log holds, the read-only opens replay
/// them in memory (the recovery under test, with the writer's replay onto the file at its next
/// open).
///
/// Beside the readers of the multiprocess mode, the open follows the version the dead writer
/// published (it neither replays nor recovers: the file is theirs too).
///
/// Prints `replayed` if the log held commits, `follower` if it followed, `space <file> <live>
/// <free> <held>` (bytes, ``SpaceUsage``), `digest <line>`, `bank <accounts> <total>`
/// (``Bank``), then `verified <transaction>
/// <pages> <free pages>` and, for a file with replication slots, `retained <versions checked>
/// <retained pages>` (a sample of the retained versions walked page by page), and the slots'
/// lines of ``RetentionCheck``; on an error, `error <message>` and exit status 1. A trap is a
/// finding: the driver sees the signal.
enum Checker {
    static func check(path: String, full: Bool) async -> Int32 {
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(readOnly: true, encryptionKey: TortureEncryption.childKey))
            if database.recordsReplayed > 0 { print("replayed") }
            if database.followsAnotherProcess { print("follower") }
            let usage = database.spaceUsage
            print("space \(usage.fileBytes) \(usage.liveBytes) \(usage.freeBytes) \(usage.heldBytes)")
            let (digest, bank) = try readDigest(path: path, checkContents: full)
            print("digest \(digest.line)")
            print("bank \(bank.accounts) \(bank.total)")
            if full {
                let report = try database.verify()
                print("verified \(report.transaction) \(report.pageCount) \(report.freePages)")
                let retained = try database.verifyRetainedVersions(limit: 8)
                if !retained.isEmpty { print("retained \(retained.count) \(report.retainedPages)") }
            }
            for line in try await RetentionCheck.check(path: path, full: full) { print(line) }
            return 0
        } catch {
            print("error \(error)")
            return 1
        }
    }

    /// In a function of its own so that the handle is gone (and the file closed) on return.
    /// `checkContents`: also the public API's integrity check, which adds to the storage
    /// layer's page checks the schema's: table columns, links, and indexes against the tables.
    private static func readDigest(path: String, checkContents: Bool) throws -> (ContentDigest, (accounts: Int, total: Int)) {
        let realm = try Realm(configuration: configuration(path: path))
        if checkContents { _ = try realm.checkIntegrity() }
        return (ContentDigest(reading: realm), Bank.total(in: realm))
    }

    /// How the checker opens a file: read-only, with the run's key.
    static func configuration(path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), encryptionKey: TortureEncryption.childKey.map { Data($0) }, readOnly: true)
    }
}
