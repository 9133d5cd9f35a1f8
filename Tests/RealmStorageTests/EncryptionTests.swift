import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Encrypted files at the storage layer: every page round-trips through `PageCipher`, nothing
/// written reaches the disk in the clear, and wrong keys, missing keys and damaged pages are
/// refused with `invalidDatabase` — never read as garbage.
@Suite struct EncryptionTests {
    static let key: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    static let otherKey: [UInt8] = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
    static let layout = [ColumnSpec(.int), ColumnSpec(.bytes)]
    /// A marker that the tests look for in the raw file.
    static let marker = Array("PLAINTEXT-MARKER-0123456789".utf8)

    static func options(_ key: [UInt8]? = EncryptionTests.key) -> DatabaseOptions {
        DatabaseOptions(durability: .none, encryptionKey: key)
    }

    /// Writes value, table (wide leaves: 2 KB rows) and index trees and overflow values, in
    /// several commits; returns the trees.
    static func fill(_ database: Database, seed: UInt64) throws -> (values: TreeID, table: TreeID, index: TreeID) {
        var random = SplitMix64(seed: seed)
        let write = try database.beginWrite()
        let values = try write.createTree()
        let table = try write.createTree()
        let index = try write.createTree()
        try write.commit()
        for batch in 0..<UInt64(4) {
            let write = try database.beginWrite()
            for key in (batch * 500)..<((batch + 1) * 500) {
                let length = key % 97 == 0 ? 9_000 : Int(random.next() % 300)
                _ = try write.put(values, key: key, value: marker + testValue(key: key, version: seed, length: length))
                let text = marker + [UInt8](repeating: UInt8(key % 250), count: key % 5 == 0 ? 2_000 : Int(random.next() % 200))
                try write.insertRow(table, key: key, values: [.int(Int64(key)), .bytes(text)], layout: layout)
                try write.indexInsert(index, key: IndexKey.key(IndexKey.int(Int64(key % 50)), objectKey: key))
            }
            try write.commit()
        }
        return (values, table, index)
    }

    static func contents(_ database: Database, _ tree: TreeID) throws -> [(UInt64, [UInt8])] {
        let read = try database.beginRead()
        var result: [(UInt64, [UInt8])] = []
        try read.forEach(in: read.root(of: tree)) { key, value in result.append((key, Array(value))); return true }
        return result
    }

    /// An encrypted file at `path` filled by ``fill(_:seed:)`` and closed: its trees and the
    /// value tree's contents.
    static func writtenFile(at path: String, seed: UInt64) throws -> (trees: (values: TreeID, table: TreeID, index: TreeID), values: [(UInt64, [UInt8])]) {
        let database = try Database.open(path: path, options: options())
        let trees = try fill(database, seed: seed)
        let values = try contents(database, trees.values)
        try database.close()
        return (trees, values)
    }

    /// Whether two trees' contents are equal, key by key and byte by byte.
    static func same(_ a: [(UInt64, [UInt8])], _ b: [(UInt64, [UInt8])]) -> Bool {
        a.elementsEqual(b) { $0.0 == $1.0 && $0.1 == $1.1 }
    }

    static func fileContains(_ path: String, _ needle: [UInt8]) throws -> Bool {
        let data = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        guard data.count >= needle.count else { return false }
        for start in 0...(data.count - needle.count) where data[start] == needle[0] {
            if Array(data[start..<(start + needle.count)]) == needle { return true }
        }
        return false
    }

    @Test(arguments: [1, 2] as [UInt64])
    func anEncryptedFileReadsBackAfterReopeningAndPassesTheIntegrityCheck(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let (trees, expected) = try Self.writtenFile(at: path, seed: seed)
        let reopened = try Database.open(path: path, options: Self.options())
        _ = try reopened.verify()
        let actual = try Self.contents(reopened, trees.values)
        #expect(actual.count == expected.count)
        #expect(Self.same(actual, expected))
        let read = try reopened.beginRead()
        #expect(try read.count(of: trees.table) == 2_000)
        #expect(try read.count(of: trees.index) == 2_000)
        var rows = 0
        try read.forEachCluster(in: read.root(of: trees.table)) { leaf in
            for row in 0..<leaf.count {
                let key = leaf.key(row)
                let value = try read.value(leaf, row: row, column: 0, spec: Self.layout[0])
                #expect(value == .int(Int64(key)))
                rows += 1
            }
            return true
        }
        #expect(rows == 2_000)
    }

    @Test func nothingWrittenReachesTheFileInTheClear() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.realm")
        let encrypted = directory.path("encrypted.realm")
        for (path, key) in [(plain, nil), (encrypted, Self.key)] as [(String, [UInt8]?)] {
            let database = try Database.open(path: path, options: Self.options(key))
            _ = try Self.fill(database, seed: 7)
            try database.close()
        }
        #expect(try Self.fileContains(plain, Self.marker), "the check must be able to find the marker")
        #expect(try !Self.fileContains(encrypted, Self.marker))
        #expect(try !Self.fileContains(encrypted, Array("RLMACTR".utf8)))
    }

    @Test func keysAreCheckedWithMessagesThatSayWhatIsWrong() throws {
        let directory = try TemporaryDirectory()
        let encrypted = directory.path("encrypted.realm")
        let plain = directory.path("plain.realm")
        try Database.open(path: encrypted, options: Self.options()).close()
        try Database.open(path: plain, options: Self.options(nil)).close()

        func failure(_ path: String, _ key: [UInt8]?) -> StorageError? {
            do {
                try Database.open(path: path, options: Self.options(key)).close()
                return nil
            } catch let error as StorageError {
                return error
            } catch {
                return nil
            }
        }
        let wrong = failure(encrypted, Self.otherKey)
        #expect(wrong?.code == .invalidDatabase)
        #expect(wrong?.message.contains("encryption key is wrong") == true)
        let missing = failure(encrypted, nil)
        #expect(missing?.code == .invalidDatabase)
        #expect(missing?.message.contains("is encrypted") == true)
        let unexpected = failure(plain, Self.key)
        #expect(unexpected?.code == .invalidDatabase)
        #expect(unexpected?.message.contains("not encrypted") == true)
        let short = failure(directory.path("new.realm"), Array(Self.key.prefix(32)))
        #expect(short?.code == .invalidInput)
        #expect(!FileManager.default.fileExists(atPath: directory.path("new.realm")))
        // The right key still opens it: failed opens changed nothing.
        try Database.open(path: encrypted, options: Self.options()).close()
    }

    /// Every data page of a file, flipped one at a time: reading the whole file afterwards
    /// either succeeds with the same data (the page was free) or throws invalidDatabase.
    @Test func aDamagedPageIsRefusedNotDecryptedToGarbage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let (trees, expected) = try Self.writtenFile(at: path, seed: 3)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let pages = original.count / PageLayout.pageSize
        var refused = 0
        for page in stride(from: 2, to: pages, by: max(1, pages / 40)) {
            var damaged = original
            let offset = page * PageLayout.pageSize + 100 + page % 1000
            damaged[offset] ^= 0x20
            try damaged.write(to: URL(fileURLWithPath: path))
            do {
                let database = try Database.open(path: path, options: Self.options())
                let actual = try Self.contents(database, trees.values)
                _ = try database.verify()
                #expect(Self.same(actual, expected), "page \(page) read as other data")
            } catch let error as StorageError {
                #expect(error.code == .invalidDatabase, "page \(page): \(error)")
                refused += 1
            }
        }
        #expect(refused > 0)
        // Both meta pages damaged: refused as corrupt, not as a wrong key.
        var damaged = original
        damaged[200] ^= 1
        damaged[PageLayout.pageSize + 200] ^= 1
        try damaged.write(to: URL(fileURLWithPath: path))
        #expect {
            try Database.open(path: path, options: Self.options()).close()
        } throws: { error in
            (error as? StorageError)?.code == .invalidDatabase
                && (error as? StorageError)?.message.contains("authentication") == true
        }
    }

    @Test func aCompactCopyEncryptsDecryptsAndRekeys() throws {
        let directory = try TemporaryDirectory()
        let source = try Database.open(path: directory.path("source.realm"), options: Self.options(nil))
        let trees = try Self.fill(source, seed: 5)
        let expected = try Self.contents(source, trees.values)
        let reader = try source.beginRead()
        let layouts = [trees.table: Self.layout]
        try Database.writeCompactCopy(of: reader, tables: layouts, to: directory.path("encrypted.realm"), encryptionKey: Self.key)
        let encrypted = try Database.open(path: directory.path("encrypted.realm"), options: Self.options())
        let encryptedReader = try encrypted.beginRead()
        try Database.writeCompactCopy(of: encryptedReader, tables: layouts, to: directory.path("rekeyed.realm"), encryptionKey: Self.otherKey)
        try Database.writeCompactCopy(of: encryptedReader, tables: layouts, to: directory.path("decrypted.realm"))
        #expect(try !Self.fileContains(directory.path("encrypted.realm"), Self.marker))
        #expect(try !Self.fileContains(directory.path("rekeyed.realm"), Self.marker))
        #expect(try Self.fileContains(directory.path("decrypted.realm"), Self.marker))
        for (name, key) in [("encrypted.realm", Self.key), ("rekeyed.realm", Self.otherKey), ("decrypted.realm", nil)] as [(String, [UInt8]?)] {
            let copy = name == "encrypted.realm" ? encrypted : try Database.open(path: directory.path(name), options: Self.options(key))
            _ = try copy.verify()
            let actual = try Self.contents(copy, trees.values)
            #expect(Self.same(actual, expected), "\(name)")
        }
    }

    /// Pages written, freed and written again at the same numbers, with readers pinning old
    /// versions: every version reads its own contents (the decrypted cache follows reuse).
    @Test func reusedPagesReadTheirNewContentsAndPinnedVersionsTheirOld() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let database = try Database.open(path: path, options: Self.options())
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        try setup.commit()
        var pinned: [(ReadTransaction, UInt64)] = []
        for version in 0..<UInt64(60) {
            let write = try database.beginWrite()
            for key in 0..<UInt64(300) {
                _ = try write.put(tree, key: key, value: testValue(key: key, version: version, length: 40 + Int(key % 60)))
            }
            try write.commit()
            if version % 10 == 0 { pinned.append((try database.beginRead(), version)) }
            for (reader, readerVersion) in pinned {
                try reader.forEach(in: reader.root(of: tree)) { key, value in
                    #expect(Array(value) == testValue(key: key, version: readerVersion, length: 40 + Int(key % 60)))
                    return true
                }
            }
            if version % 20 == 19 { pinned.removeAll() }
        }
        pinned.removeAll()
        try database.close()
        let reopened = try Database.open(path: path, options: Self.options())
        _ = try reopened.verify()
        try reopened.beginRead().forEach(in: reopened.beginRead().root(of: tree)) { key, value in
            #expect(Array(value) == testValue(key: key, version: 59, length: 40 + Int(key % 60)))
            return true
        }
    }

    /// Deleting most of what was read gives the decrypted pages' memory back within a few
    /// commits (``FreePageMemory``), while what is left still reads right. The same holds for an
    /// in-memory database, whose pages live in the same kind of memory.
    @Test(arguments: [true, false])
    func freedPagesGiveTheirMemoryBack(encrypted: Bool) throws {
        let directory = try TemporaryDirectory()
        let database = encrypted
            ? try Database.open(path: directory.path(), options: Self.options())
            : try Database.inMemory()
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        try setup.commit()
        let keys = UInt64(40_000)
        for batch in 0..<UInt64(4) {
            let write = try database.beginWrite()
            for key in stride(from: batch, to: keys, by: 4) {
                _ = try write.put(tree, key: key, value: testValue(key: key, version: 1, length: 300))
            }
            try write.commit()
        }
        #expect(try Self.contents(database, tree).count == Int(keys))  // every page read once
        let before = database.map.residentPageCount(below: database.pageCount)
        let write = try database.beginWrite()
        for key in 0..<keys where key % 10 != 0 { _ = try write.remove(tree, key: key) }
        try write.commit()
        for _ in 0..<3 {  // the freed pages become reusable, then are given back
            let write = try database.beginWrite()
            _ = try write.put(tree, key: keys, value: [1])
            try write.commit()
        }
        let after = database.map.residentPageCount(below: database.pageCount)
        // 12 MB of values: about 3,000 pages before, a tenth of them after.
        #expect(before > 2_500)
        #expect(after < before / 4, "resident pages: \(before) before the delete, \(after) after")
        let left = try Self.contents(database, tree)
        #expect(left.count == Int(keys) / 10 + 1)
        for (key, value) in left where key < keys {
            #expect(value == testValue(key: key, version: 1, length: 300))
        }
        _ = try database.verify()
    }

    /// Many threads reading a freshly reopened encrypted file at once: each page is decrypted by
    /// one of them (the others wait on its stripe or find it ready), and all read the same data.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func concurrentFirstReadsAgree(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let (trees, expected) = try Self.writtenFile(at: path, seed: seed)
        let database = try Database.open(path: path, options: Self.options())
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let actual = try Self.contents(database, trees.values)
                    return Self.same(actual, expected)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
        _ = try database.verify()
    }

    /// A value of several megabytes: one overflow run, encrypted and authenticated as one.
    @Test func aLargeValueRoundTrips() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let value = testValue(key: 1, version: 2, length: 5_000_000)
        let tree: TreeID
        do {
            let database = try Database.open(path: path, options: Self.options())
            let write = try database.beginWrite()
            tree = try write.createTree()
            _ = try write.put(tree, key: 1, value: value)
            try write.commit()
            try database.close()
        }
        let database = try Database.open(path: path, options: Self.options())
        let read = try database.beginRead()
        #expect(try read.value(tree, key: 1) == value)
    }
}
