import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Encrypted files against someone who holds the files but not the key (FORMAT.md, "Encrypted
/// files", the threat model): copies written on both sides, old authentic pages put back, old
/// log records replayed. Each test builds the attack from the files' bytes, as an attacker
/// would, and checks what the library then does.
@Suite struct EncryptionAttackTests {
    static let key = EncryptionTests.key

    static func options(durability: DatabaseOptions.Durability = .none) -> DatabaseOptions {
        DatabaseOptions(durability: durability, encryptionKey: key)
    }

    static func bytes(_ path: String) throws -> [UInt8] { try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) }

    static func write(_ bytes: [UInt8], to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    /// The transaction an encrypted file stores in the clear at `page`.
    static func transaction(_ file: [UInt8], page: Int) -> UInt64 {
        file.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: page * PageLayout.pageSize + 8, as: UInt64.self) }
    }

    /// Whether `needle` occurs in `haystack`.
    static func contains(_ haystack: [UInt8], _ needle: ArraySlice<UInt8>) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        for start in 0...(haystack.count - needle.count) where haystack[start] == first {
            if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
        }
        return false
    }

    /// A file copied byte for byte (a backup restored, a VM snapshot, a seed), then written on
    /// both sides with different data in the same transactions at the same pages: with counters
    /// of (transaction, page), the XOR of the two files showed the XOR of the two plaintexts.
    /// Here no 32-byte run of that XOR appears in the files' XOR, though the scenario is real:
    /// the copies hold pages at the same number stamped with the same transaction and different
    /// contents.
    @Test func copiesWrittenOnBothSidesShareNoKeyStream() throws {
        let directory = try TemporaryDirectory()
        let original = directory.path("original.realm")
        let copy = directory.path("copy.realm")
        let (trees, _) = try EncryptionTests.writtenFile(at: original, seed: 11)
        try Self.write(Self.bytes(original), to: copy)

        var random = SplitMix64(seed: 77)
        let secrets = [random.bytes(3_000), random.bytes(3_000)]
        for (path, secret) in zip([original, copy], secrets) {
            let database = try Database.open(path: path, options: Self.options())
            for round in 0..<3 {
                let write = try database.beginWrite()
                _ = try write.put(trees.values, key: 100 + UInt64(round), value: secret)
                try write.insertRow(trees.table, key: 10_000 + UInt64(round), values: [.int(1), .bytes(Array(secret.prefix(1_500)))],
                                    layout: EncryptionTests.layout)
                try write.commit()
            }
            try database.close()
        }
        let files = try [Self.bytes(original), Self.bytes(copy)]
        let length = min(files[0].count, files[1].count)
        let pages = length / PageLayout.pageSize
        // The scenario: pages at one number, stamped with one transaction, holding different bytes.
        let sameCounter = (2..<pages).filter { page in
            Self.transaction(files[0], page: page) == Self.transaction(files[1], page: page)
                && files[0][(page * PageLayout.pageSize)..<((page + 1) * PageLayout.pageSize)]
                != files[1][(page * PageLayout.pageSize)..<((page + 1) * PageLayout.pageSize)]
        }
        #expect(!sameCounter.isEmpty, "the copies never wrote one page in one transaction: the test shows nothing")
        let filesXOR = (0..<length).map { files[0][$0] ^ files[1][$0] }
        let secretsXOR = zip(secrets[0], secrets[1]).map { $0 ^ $1 }
        let leaked = stride(from: 0, to: secretsXOR.count - 32, by: 97).filter { Self.contains(filesXOR, secretsXOR[$0..<($0 + 32)]) }
        #expect(leaked.isEmpty, "key stream reused: the plaintexts' XOR shows in the files' XOR at \(leaked.count) places")
        // And each copy reads its own data back.
        for (path, secret) in zip([original, copy], secrets) {
            let database = try Database.open(path: path, options: Self.options())
            do {
                let read = try database.beginRead()
                let value = try read.withValue(in: read.root(of: trees.values), forKey: 102) { Array($0) }
                #expect(value == secret)
            }
            try database.close()
        }
    }

    /// An old authentic image of a page, taken from an earlier copy of the file and put back at
    /// its number: its tag is valid (the key wrote it there), so only its transaction, checked
    /// against its reference on every read, gives it away. Every such splice reads either the
    /// newest contents or throws `invalidDatabase` — never the old contents.
    @Test func anOldAuthenticPagePutBackIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let (trees, _) = try EncryptionTests.writtenFile(at: path, seed: 21)
        let backup = try Self.bytes(path)
        // Rewrite every value and row, then one more commit elsewhere, so that recovery falling
        // back to the version before the newest (a stale page in the newest batch) still reads
        // the rewritten trees.
        let database = try Database.open(path: path, options: Self.options())
        let write = try database.beginWrite()
        let marker = try write.createTree()
        for key in UInt64(0)..<2_000 {
            _ = try write.put(trees.values, key: key, value: EncryptionTests.marker + testValue(key: key, version: 99, length: Int(key % 200)))
            _ = try write.updateValue(trees.table, key: key, column: 0, value: .int(-Int64(key)), layout: EncryptionTests.layout)
        }
        try write.commit()
        let last = try database.beginWrite()
        _ = try last.put(marker, key: 1, value: [1])
        try last.commit()
        let newestValues = try EncryptionTests.contents(database, trees.values)
        try database.close()
        let current = try Self.bytes(path)

        let pageSize = PageLayout.pageSize
        let candidates = (2..<(min(backup.count, current.count) / pageSize)).filter { page in
            backup[(page * pageSize)..<((page + 1) * pageSize)] != current[(page * pageSize)..<((page + 1) * pageSize)]
                && Self.transaction(backup, page: page) != Self.transaction(current, page: page)
        }
        #expect(candidates.count > 10)
        var staleRefused = 0
        var random = SplitMix64(seed: 5)
        let sample = candidates.count <= 80 ? candidates : (0..<80).map { _ in candidates[Int(random.next() % UInt64(candidates.count))] }
        for page in Set(sample).sorted() {
            var spliced = current
            spliced[(page * pageSize)..<((page + 1) * pageSize)] = backup[(page * pageSize)..<((page + 1) * pageSize)]
            try Self.write(spliced, to: path)
            do {
                let reopened = try Database.open(path: path, options: Self.options())
                defer { try? reopened.close() }
                let values = try EncryptionTests.contents(reopened, trees.values)
                var rows: [Int64] = []
                do {
                    let read = try reopened.beginRead()
                    try read.forEachCluster(in: read.root(of: trees.table)) { leaf in
                        for row in 0..<leaf.count { rows.append(leaf.int(row, 0)) }
                        return true
                    }
                }
                #expect(EncryptionTests.same(values, newestValues), "page \(page): old values read")
                #expect(rows == (0..<2_000).map { -Int64($0) }, "page \(page): old rows read")
            } catch let error as StorageError {
                #expect(error.code == .invalidDatabase, "page \(page): \(error)")
                if error.message.contains("holds transaction") { staleRefused += 1 }
            }
        }
        #expect(staleRefused > 0, "no splice met the transaction check: the test shows nothing")
    }

    /// A record of an earlier log generation, relabelled with the current generation's salt and
    /// sequence and given a correct checksum (which needs no key): recovery would replay its old
    /// authentic images over the file. In an encrypted file record headers carry a keyed MAC,
    /// so the forged record is not replayed and the newest version stays.
    @Test func anOldLogRecordReplayedIntoANewGenerationIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let logPath = path + AuxiliaryFile.log.suffix
        let database = try Database.open(path: path, options: Self.options(durability: .full))
        let write = try database.beginWrite()
        let tree = try write.createTree()
        _ = try write.put(tree, key: 1, value: Array("old value".utf8))
        try write.commit()
        // The log now holds this commit's record: what an attacker's old copy of it keeps.
        let oldLog = try Self.bytes(logPath)
        #expect(database.log?.hasRecords == true)
        let later = try database.beginWrite()
        _ = try later.put(tree, key: 1, value: Array("new value".utf8))
        try later.commit()
        try database.close()  // checkpoints: a new generation, a new salt

        var log = try Self.bytes(logPath)
        let salt = log.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 24, as: UInt64.self) }
        var record = Array(oldLog[PageLayout.pageSize...])
        let entries = record.withUnsafeBytes { Int($0.loadUnaligned(fromByteOffset: 40, as: UInt32.self)) }
        record.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: salt, toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: 0 as UInt64, toByteOffset: 24, as: UInt64.self)
            let code = PageChecksum.compute(raw.baseAddress!, length: LogLayout.headerBytes + LogLayout.entryBytes * entries)
            raw.storeBytes(of: code, as: UInt64.self)
        }
        log = Array(log.prefix(PageLayout.pageSize)) + record
        try Self.write(log, to: logPath)

        let reopened = try Database.open(path: path, options: Self.options(durability: .full))
        #expect(reopened.recordsReplayed == 0)
        do {
            let read = try reopened.beginRead()
            #expect(try read.withValue(in: read.root(of: tree), forKey: 1) { Array($0) } == Array("new value".utf8))
        }
        _ = try reopened.verify()
        try reopened.close()
    }

    /// Files of an encrypted realm are created readable by their owner only.
    @Test func anEncryptedRealmsFilesAreOwnerOnly() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let database = try Database.open(path: path, options: Self.options(durability: .full))
        let write = try database.beginWrite()
        _ = try write.createTree()
        try write.commit()
        try database.close()
        for file in [path, path + AuxiliaryFile.log.suffix] {
            let mode = try #require(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "\(file): \(String(mode, radix: 8))")
        }
    }
}
