import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Several processes on one encrypted file (issue 39): each process keeps the plaintext of the
/// pages it read (`DecryptedPageCache`), and every writer reuses page numbers as soon as no
/// process's pin reaches them. So whenever a process takes a version another process made — a
/// follower beginning a read, a writer beginning a read or taking write ownership — it must first
/// forget its plaintext of the pages written since it last looked (the written-pages ring of the
/// lock file); a writer joining readers after a crash must make them forget whatever the log's
/// replay or recovery rewrote, which no ring entry names. A page forgotten too little reads as
/// its old plaintext: a wrong value, or damage (its transaction does not match its parent's).
///
/// Two `Database` instances on one path stand for two processes, as in `LockFileTests` and
/// `SharedWritingTests`.
@Suite struct EncryptedProcessesTests {
    static let layout = [ColumnSpec(.int)]
    static let key = (0..<64).map { UInt8($0 ^ 0x5A) }
    static let rows: UInt64 = 3_000

    static func options(readOnly: Bool = false, sharesWriting: Bool = true) -> DatabaseOptions {
        var options = DatabaseOptions(readOnly: readOnly, durability: .none, encryptionKey: key)
        options.sharesWriting = sharesWriting && !readOnly
        return options
    }

    /// The rows of `table` in `database`'s newest version that do not hold `expected` (at most a
    /// few, described); a damaged page counts as one.
    static func mismatches(_ database: Database, _ table: TreeID, expected: Int64) -> [String] {
        var found: [String] = []
        do {
            let read = try database.beginRead()
            var rows: UInt64 = 0
            try read.forEachCluster(in: try read.root(of: table)) { leaf in
                for row in 0..<leaf.count where leaf.int(row, 0) != expected && found.count < 3 {
                    found.append("row \(rows + UInt64(row)) holds \(leaf.int(row, 0))")
                }
                rows += UInt64(leaf.count)
                return found.count < 3
            }
            if found.isEmpty, rows != Self.rows { found.append("\(rows) rows") }
        } catch {
            found.append("\(error)")
        }
        return found
    }

    /// Sets every row of `table` to `value` in one commit (a whole table rewritten: the pages the
    /// last rewrite freed are reused), or, `sparse`, every thousandth row.
    static func rewrite(_ database: Database, _ table: TreeID, to value: Int64, sparse: Bool = false) throws {
        let write = try database.beginWrite()
        for key in stride(from: 0, to: rows, by: sparse ? 1_000 : 1) {
            try write.updateValue(table, key: key, column: 0, value: .int(value), layout: layout)
        }
        try write.commit()
    }

    /// Two writing processes and a reader take turns on an encrypted file; after every commit each
    /// of them reads the whole table. Each writer's cache holds pages the other then reuses, so it
    /// must forget them when it adopts the other's version (at a read, or when it takes
    /// ownership). `wrapsTheRing`: now and then a burst of commits longer than the ring, after
    /// which a process forgets every page.
    @Test(arguments: [false, true])
    func writersForgetThePagesEachOtherWrote(wrapsTheRing: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let first = try Database.open(path: path, options: Self.options())
        let setup = try first.beginWrite()
        let table = try setup.createTree()
        for key in 0..<Self.rows { try setup.insertRow(table, key: key, values: [.int(0)], layout: Self.layout) }
        try setup.commit()
        let second = try Database.open(path: path, options: Self.options())
        let reader = try Database.open(path: path, options: Self.options(readOnly: true))
        #expect(second.lockFile?.isFirst == false && reader.followsAnotherProcess)
        var generator = SplitMix64(seed: 3_939)
        var problems: [String] = []
        for round in 1...30 where problems.isEmpty {
            let owner = generator.next() % 2 == 0 ? first : second
            if wrapsTheRing, round % 10 == 0 {
                for _ in 0..<(LockFileLayout.ringCapacity + 10) { try Self.rewrite(owner, table, to: -1, sparse: true) }
            }
            try Self.rewrite(owner, table, to: Int64(round))
            for (name, database) in [("first", first), ("second", second), ("reader", reader)] {
                problems += Self.mismatches(database, table, expected: Int64(round)).map { "round \(round), \(name): \($0)" }
            }
        }
        #expect(problems.isEmpty, "seed 3939: \(problems.prefix(5))")
        try reader.close()
        try second.close()
        try first.close()
        let reopened = try Database.open(path: path, options: DatabaseOptions(encryptionKey: Self.key))
        #expect(Self.mismatches(reopened, table, expected: 30).isEmpty)
        _ = try reopened.verify()
        try reopened.close()
    }

    /// A writer joining an encrypted file's reader after the writing process died, whose last
    /// commit was durable but never published: the joiner recovers that commit, whose pages reuse
    /// numbers the reader decrypted for older versions, and no ring entry names them. Its publish
    /// must make the reader forget its plaintext (one run over the whole file); without that the
    /// reader reads the older plaintext of the reused pages.
    @Test func aWriterJoiningAReaderAfterACrashMakesItForgetWhatRecoveryFound() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let writer = try Database.open(path: path, options: Self.options(sharesWriting: false))
        let setup = try writer.beginWrite()
        let table = try setup.createTree()
        for key in 0..<Self.rows { try setup.insertRow(table, key: key, values: [.int(0)], layout: Self.layout) }
        try setup.commit()
        let reader = try Database.open(path: path, options: Self.options(readOnly: true))
        #expect(Self.mismatches(reader, table, expected: 0).isEmpty)  // version 0's pages decrypted
        try Self.rewrite(writer, table, to: 1)
        #expect(Self.mismatches(reader, table, expected: 1).isEmpty)  // and version 1's
        let lockFile = try #require(reader.lockFile)
        let (published, slot) = writer.state.withLock { ($0.published, $0.publishedSlot) }
        let ringHead = lockFile.ringHead
        // Reuses version 0's pages, which the reader decrypted and no pin holds any more.
        try Self.rewrite(writer, table, to: 2)
        writer.lockFile?.abandon()  // the writing process dies: its locks go
        // What the lock file would hold had it died before publishing its last commit: no ring
        // entry for its pages, version 1 published.
        try LockFileTests.withWords(path) { words in
            words.storeBytes(of: ringHead, toByteOffset: LockFileLayout.ringHeadOffset, as: UInt64.self)
        }
        lockFile.publish(published, slot: slot)

        let joining = try Database.open(path: path, options: Self.options(sharesWriting: false))
        #expect(joining.lockFile?.isFirst == false)
        #expect(Self.mismatches(joining, table, expected: 2).isEmpty, "recovered the unpublished commit")
        let problems = Self.mismatches(reader, table, expected: 2)
        #expect(problems.isEmpty, "the reader read the recovered version's reused pages as: \(problems)")
        try joining.close()
        try reader.close()
    }
}
