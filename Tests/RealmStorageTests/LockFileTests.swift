import Foundation
import Synchronization
import Testing
@testable import RealmStorage
import RealmTestSupport

/// The shared lock file (`LockFile`): who is attached, sharing by the step-1 rules (readers
/// together, a writer alone), dead processes' slots cleared, a crashed or foreign lock file
/// rewritten when nobody is attached and refused when somebody is.
///
/// Two `Database` instances on one path stand for two processes: each opens its own description
/// of the lock file, and open-file-description locks (Linux) conflict between descriptions as
/// between processes. (Darwin's POSIX locks do not conflict within a process: these tests need
/// OFD locks.)
@Suite struct LockFileTests {
    static func makeFile(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path()
        let database = try Database.open(path: path, options: DatabaseOptions(durability: .none))
        let write = try database.beginWrite()
        _ = try write.createTree()
        try write.commit()
        try database.close()
        return path
    }

    static func reader(_ path: String) throws -> Database {
        var options = DatabaseOptions(durability: .none)
        options.readOnly = true
        return try Database.open(path: path, options: options)
    }

    static func writer(_ path: String) throws -> Database {
        try Database.open(path: path, options: DatabaseOptions(durability: .none))
    }

    /// Runs `body` with the lock file's words mapped, as another process would see them.
    static func withWords<T>(_ path: String, _ body: (UnsafeMutableRawPointer) throws -> T) throws -> T {
        let descriptor = open(path + ".lock", O_RDWR)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let mapping = try #require(mmap(nil, LockFileLayout.size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0))
        try #require(mapping != MAP_FAILED)
        defer { munmap(mapping, LockFileLayout.size) }
        return try body(mapping)
    }

    /// Whether some process has the file at `path` attached: exclusive access is refused.
    static func isAttached(_ path: String) throws -> Bool {
        try LockFile.whileDetached(path: path + ".lock") { true } == nil
    }

    static func slotWord(_ slot: Int, _ field: Int) -> Int { LockFileLayout.slotsOffset + slot * LockFileLayout.slotSize + field }

    /// The table the table-rewrite tests commit over and over: `rows` rows of one int column.
    static let layout = [ColumnSpec(.int)]

    /// Creates the table, every row 0, in one commit of `database`.
    static func makeTable(_ database: Database, rows: UInt64 = 2_000) throws -> TreeID {
        let setup = try database.beginWrite()
        let table = try setup.createTree()
        for key in 0..<rows { try setup.insertRow(table, key: key, values: [.int(0)], layout: layout) }
        try setup.commit()
        return table
    }

    /// Sets every row of the table to `value`, in one commit of `database`.
    static func rewrite(_ database: Database, _ table: TreeID, rows: UInt64 = 2_000, to value: Int64) throws {
        let write = try database.beginWrite()
        for key in 0..<rows { try write.updateValue(table, key: key, column: 0, value: .int(value), layout: layout) }
        try write.commit()
    }

    /// The keys whose row `read` finds missing or other than `value`. A page reused under a pin
    /// reads as damage (checked transaction ids: thrown) or as a later rewrite's value.
    static func rows(_ read: ReadTransaction, _ table: TreeID, rows: UInt64 = 2_000, notAt value: Int64) throws -> [UInt64] {
        let root = try read.root(of: table)
        return try (0..<rows).filter { key in
            guard let (leaf, row) = try read.row(in: root, key: key) else { return true }
            return leaf.int(row, 0) != value
        }
    }

    @Test func readersShareTheFileAndAWriterIsTheOnlyWriter() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        do {
            let first = try Self.reader(path), second = try Self.reader(path)
            #expect(first.lockFile?.isFirst == true && second.lockFile?.isFirst == false)
            let attached = try #require(second.lockFile).attachments()
            #expect(attached.count == 2 && attached.allSatisfy { $0.pid == getpid() && !$0.isWriter }, "\(attached)")
            // A writer joins them (a service restarting while tools read), and they follow it.
            let joining = try Self.writer(path)
            #expect(joining.lockFile?.isFirst == false)
            let write = try joining.beginWrite()
            _ = try write.createTree()
            try write.commit()
            #expect(try first.beginRead().transaction == joining.latestTransaction)
            try joining.close()
            try first.close()
            try second.close()
        }
        let writer = try Self.writer(path)
        #expect(writer.lockFile?.isFirst == true)
        #expect(try #require(writer.lockFile).attachments().map(\.isWriter) == [true])
        let second = try #require(throws: StorageError.self) { try Self.writer(path) }
        #expect(second.code == .incompatibleLockFile && second.message.contains("one writing process"), "\(second)")
        try writer.close()
        #expect(try !Self.isAttached(path))
        try Self.reader(path).close()
    }

    /// A process killed while attached leaves its slot marked attached, but the kernel released
    /// its liveness byte: the next process to attach clears the slot, and a dead writer does not
    /// keep readers out.
    @Test func aDeadProcesssSlotIsCleared() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let first = try Self.reader(path)
        let dead = 7
        try Self.withWords(path) { words in
            words.storeBytes(of: LockFileLayout.SlotState.attached.rawValue, toByteOffset: Self.slotWord(dead, LockFileLayout.slotStateOffset), as: UInt64.self)
            words.storeBytes(of: LockFileLayout.SlotFlags.writer.rawValue, toByteOffset: Self.slotWord(dead, LockFileLayout.slotFlagsOffset), as: UInt64.self)
            words.storeBytes(of: 999_999, toByteOffset: Self.slotWord(dead, LockFileLayout.slotPIDOffset), as: UInt64.self)
        }
        #expect(try #require(first.lockFile).attachments().count == 1)
        let second = try Self.reader(path)
        try Self.withWords(path) { words in
            #expect(words.load(fromByteOffset: Self.slotWord(dead, LockFileLayout.slotStateOffset), as: UInt64.self) == 0)
            #expect(words.load(fromByteOffset: Self.slotWord(dead, LockFileLayout.slotPIDOffset), as: UInt64.self) == 0)
        }
        #expect(try #require(second.lockFile).attachments().count == 2)
        try first.close()
        try second.close()
    }

    /// What a crash, a half-finished initialization or an older layout leaves in the lock file
    /// means nothing once nobody is attached: the next open rewrites it.
    @Test func aLockFileNobodyHoldsIsRewritten() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        var generator = SplitMix64(seed: 39)
        for size in [0, 100, LockFileLayout.size, LockFileLayout.size + 4096] {
            let garbage = Data((0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            try garbage.write(to: URL(fileURLWithPath: path + ".lock"))
            let database = try Self.writer(path)
            #expect(database.lockFile?.isFirst == true)
            #expect(try #require(database.lockFile).attachments().count == 1, "size \(size)")
            try database.close()
        }
    }

    /// A joiner checks the header the first process wrote: another layout, or another data file
    /// than the one the attached processes have open, is refused with what differs.
    @Test func aJoinerChecksTheHeader() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let first = try Self.reader(path)
        for (offset, expected) in [(LockFileLayout.versionOffset, "layout 99"), (LockFileLayout.dataInodeOffset, "replaced"),
                                   (LockFileLayout.dataFileIDOffset, "replaced")] {
            let saved = try Self.withWords(path) { words in
                defer { words.storeBytes(of: 99, toByteOffset: offset, as: UInt64.self) }
                return words.load(fromByteOffset: offset, as: UInt64.self)
            }
            let error = try #require(throws: StorageError.self) { try Self.reader(path) }
            #expect(error.code == .incompatibleLockFile && error.message.contains(expected), "\(error)")
            try Self.withWords(path) { $0.storeBytes(of: saved, toByteOffset: offset, as: UInt64.self) }
        }
        let second = try Self.reader(path)
        try first.close()
        try second.close()
    }

    /// The last process to detach closes the session; until then it stays open.
    @Test func theLastProcessToDetachClosesTheSession() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let first = try Self.reader(path), second = try Self.reader(path)
        let session = { try Self.withWords(path) { $0.load(fromByteOffset: LockFileLayout.sessionOffset, as: UInt64.self) } }
        let opened = try session()
        #expect(opened != 0)
        try first.close()
        #expect(try session() == opened)
        #expect(try Self.isAttached(path))
        try second.close()
        #expect(try session() == 0)
        #expect(try !Self.isAttached(path))
    }

    static func slotPins(_ path: String, slot: Int) throws -> (exact: [UInt64], range: ClosedRange<UInt64>?) {
        try withWords(path) { words in
            let exact = (0..<LockFileLayout.exactPinsPerSlot).map {
                words.load(fromByteOffset: slotWord(slot, LockFileLayout.slotExactPinsOffset + 8 * $0), as: UInt64.self)
            }.filter { $0 != 0 }
            let low = words.load(fromByteOffset: slotWord(slot, LockFileLayout.slotRangeLowOffset), as: UInt64.self)
            let high = words.load(fromByteOffset: slotWord(slot, LockFileLayout.slotRangeHighOffset), as: UInt64.self)
            return (exact.sorted(), low == 0 ? nil : low...high)
        }
    }

    /// Each distinct version this process pins is in its slot — exactly while the slot has room,
    /// then in its range — and leaves it with its last local pin.
    @Test func pinnedVersionsAreMirroredIntoTheSlot() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let database = try Self.writer(path)
        let slot = try #require(database.lockFile?.attachments().first).slot
        var readers: [ReadTransaction] = []
        for _ in 0..<(LockFileLayout.exactPinsPerSlot + 4) {
            let write = try database.beginWrite()
            _ = try write.createTree()
            try write.commit()
            readers.append(try database.beginRead())
            readers.append(try database.beginRead())  // a second pin of a version changes nothing
        }
        let versions = readers.map(\.transaction)
        let distinct = Array(Set(versions)).sorted()
        var pins = try Self.slotPins(path, slot: slot)
        #expect(pins.exact == Array(distinct.prefix(LockFileLayout.exactPinsPerSlot)))
        #expect(pins.range == distinct[LockFileLayout.exactPinsPerSlot]...distinct.last!)
        // The range shrinks to the versions still pinned past the exact entries.
        readers.removeAll { $0.transaction == distinct.last! }
        #expect(try Self.slotPins(path, slot: slot).range == distinct[LockFileLayout.exactPinsPerSlot]...distinct[distinct.count - 2])
        readers.removeAll { $0.transaction == distinct[0] }
        pins = try Self.slotPins(path, slot: slot)
        #expect(pins.exact == Array(distinct[1..<LockFileLayout.exactPinsPerSlot]))
        readers.removeAll()
        pins = try Self.slotPins(path, slot: slot)
        #expect(pins.exact.isEmpty && pins.range == nil)
        try database.close()
    }

    /// A version another process pins keeps its pages while this process's writer commits over
    /// it: the writer reads every attached slot's pins (here a slot filled as another process
    /// would fill it, pinning one version exactly and others through a range).
    @Test func theWriterHonoursOtherProcessesPins() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let database = try Self.writer(path)
        let table = try Self.makeTable(database)
        var pinned: [MetaPage] = []
        for round in 1...40 {
            if round == 1 || round == 20 || round == 21 { pinned.append(database.state.withLock { $0.published }) }
            try Self.rewrite(database, table, to: Int64(round))
            if round == 1 {
                // Another process attaches (its slot, as it would fill it) and pins the versions
                // of rounds 1 (exactly) and 20...21 (through its range).
                try Self.withWords(path) { words in
                    let other = 100
                    words.storeBytes(of: pinned[0].transaction, toByteOffset: Self.slotWord(other, LockFileLayout.slotExactPinsOffset), as: UInt64.self)
                    words.storeBytes(of: pinned[0].transaction + 19, toByteOffset: Self.slotWord(other, LockFileLayout.slotRangeLowOffset), as: UInt64.self)
                    words.storeBytes(of: pinned[0].transaction + 20, toByteOffset: Self.slotWord(other, LockFileLayout.slotRangeHighOffset), as: UInt64.self)
                    words.storeBytes(of: LockFileLayout.SlotState.attached.rawValue, toByteOffset: Self.slotWord(other, LockFileLayout.slotStateOffset), as: UInt64.self)
                    words.storeBytes(of: UInt64(other + 1), toByteOffset: LockFileLayout.slotHighWaterOffset, as: UInt64.self)
                }
            }
        }
        #expect(database.oldestPinnedTransaction == pinned[0].transaction)
        for (index, meta) in pinned.enumerated() {
            database.pin(meta.transaction)
            let reader = ReadTransaction(database: database, meta: meta)
            let expected: Int64 = index == 0 ? 0 : Int64(index == 1 ? 19 : 20)
            let mismatches = try Self.rows(reader, table, notAt: expected)
            #expect(mismatches.isEmpty, "version \(meta.transaction): \(mismatches.count) rows changed")
        }
        try database.close()
    }

    /// A writer that joins readers and recovers a version beyond the one the lock file publishes
    /// (its predecessor died after the log sync, before the publish) keeps the published
    /// version's pages until it has scanned the slots *after* publishing its own: a reader may
    /// adopt the published version and pin it while the joiner recovers, and that pin's re-check
    /// passes because nothing newer is published yet. Here the pin lands just after the open (as
    /// it would have in that window, unseen by recovery's scan); the joiner's commits must not
    /// reuse its pages. (Found by `realm-torture --readers`: a reader read a reused page.)
    @Test func aJoiningWriterKeepsThePublishedVersionsPagesForReadersPinningIt() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let writer = try Database.open(path: path)
        let table = try Self.makeTable(writer)
        let (published, slot) = writer.state.withLock { ($0.published, $0.publishedSlot) }
        // A reader stays attached throughout, so the next writer joins rather than starts alone.
        let reader = try Self.reader(path)
        try Self.rewrite(writer, table, to: 1)
        try writer.close()
        // The dead writer's last publish: the version before its last durable commit.
        try #require(reader.lockFile).publish(published, slot: slot)

        let joining = try Database.open(path: path)
        #expect(joining.lockFile?.isFirst == false)
        #expect(joining.latestTransaction > published.transaction, "recovered beyond the published version")
        reader.pin(published.transaction)  // taken in the window: after recovery's scan, before the publish
        for round in 2...20 { try Self.rewrite(joining, table, to: Int64(round)) }
        let changed = try Self.rows(ReadTransaction(database: reader, meta: published), table, notAt: 0)
        #expect(changed.isEmpty, "\(changed.count) rows of the pinned version changed")
        reader.unpin(published.transaction)
        try joining.close()
        try reader.close()
    }

    /// A writer joining readers after the writing process died does not write the log's published
    /// records again: the dead writer wrote their pages in place before publishing, and later
    /// records rewrote some of those pages since — replaying an older record would show a reader
    /// of the published version older pages until the replay reached the newer one. A follower
    /// reads its version whole before every write of the joiner's open. (Found by
    /// `realm-torture --readers`: readers read "a stale, misplaced or overwritten page".)
    @Test func aJoiningWritersReplayNeverShowsReadersOlderPages() throws {
        final class BeforeEachWrite: IOFaultInjector {
            let action: @Sendable () -> Void
            init(_ action: @escaping @Sendable () -> Void) { self.action = action }
            func beforeWrite(offset: UInt64, length: Int) -> WriteFault { action(); return .none }
            func beforeSync() -> Int32? { nil }
        }
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let writer = try Database.open(path: path)
        let table = try Self.makeTable(writer)
        let reader = try Self.reader(path)
        // Small commits: each a record of the log (none checkpointed), each rewriting the table on
        // pages the ones before freed.
        let rounds: Int64 = 12
        for round in 1...rounds { try Self.rewrite(writer, table, to: round) }
        #expect(try reader.beginRead().transaction == writer.latestTransaction)
        // The writing process dies: its locks go, its log stays.
        try #require(writer.lockFile).abandon()

        let problems = Mutex<[String]>([])
        let check: @Sendable () -> Void = {
            do {
                let stale = try Self.rows(reader.beginRead(), table, notAt: rounds)
                if !stale.isEmpty { problems.withLock { $0.append("\(stale.count) rows not at round \(rounds)") } }
            } catch {
                problems.withLock { $0.append("\(error)") }
            }
        }
        let joining = try Database.open(path: path, options: DatabaseOptions(faults: BeforeEachWrite(check)))
        #expect(joining.lockFile?.isFirst == false)
        check()
        let found = problems.withLock { $0 }
        #expect(found.count == 0, "reads of the published version failed during the open, first: \(found.first ?? "")")
        try joining.close()
        try reader.close()
        withExtendedLifetime(writer) {}
    }

    /// A read-only process beside the writing one follows it: it begins at the writer's newest
    /// durable version, each new reader at the newest then, and a version it still reads keeps its
    /// pages while the writer commits on (its pin is in its slot, where the writer looks).
    @Test func aReaderInAnotherProcessFollowsTheWriter() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let writer = try Self.writer(path)
        let table = try Self.makeTable(writer, rows: 1_000)

        let follower = try Self.reader(path)
        #expect(follower.lockFile?.isFirst == false)
        var first: ReadTransaction? = try follower.beginRead()
        let firstVersion = try #require(first).transaction
        #expect(firstVersion == writer.latestTransaction)
        #expect(try Self.rows(#require(first), table, rows: 1_000, notAt: 0).isEmpty)
        for round in 1...30 {
            try Self.rewrite(writer, table, rows: 1_000, to: Int64(round))
            let newest = try follower.beginRead()
            #expect(newest.transaction == writer.latestTransaction)
            #expect(try Self.rows(newest, table, rows: 1_000, notAt: Int64(round)).isEmpty)
        }
        #expect(writer.oldestPinnedTransaction == firstVersion, "the follower's pin, seen by the writer")
        // The follower reads the free list from the file (it never loads one to write with):
        // the same pages free as the writer's, the snapshot's among the held ones.
        let ours = follower.spaceUsage, theirs = writer.spaceUsage
        #expect(ours.fileBytes == theirs.fileBytes && ours.freeBytes + ours.heldBytes == theirs.freeBytes + theirs.heldBytes,
                "\(ours) against \(theirs)")
        #expect(ours.heldBytes > 0, "the pages of the follower's own snapshot are held")
        #expect(try Self.rows(#require(first), table, rows: 1_000, notAt: 0).isEmpty, "its pages kept while the writer rewrote the table 30 times")
        first = nil
        #expect(writer.oldestPinnedTransaction == nil)
        try follower.close()
        try writer.close()
    }

    /// A published version the file cannot hold (a lock file written by something else: the
    /// writer publishes only versions whose pages it wrote) is refused as damage, at open and at a
    /// reader's begin — never mapped past the file's end, where a read would be SIGBUS.
    @Test func aPublishedVersionTheFileCannotHoldIsRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let writer = try Self.writer(path)
        let follower = try Self.reader(path)
        var forged = writer.state.withLock { $0.published }
        forged.transaction += 100
        forged.pageCount = 1 << 40
        try #require(writer.lockFile).publish(forged, slot: 0)
        let atBegin = try #require(throws: StorageError.self) { try follower.beginRead() }
        #expect(atBegin.code == .invalidDatabase && atBegin.message.contains("cannot hold"), "\(atBegin)")
        let atOpen = try #require(throws: StorageError.self) { try Self.reader(path) }
        #expect(atOpen.code == .invalidDatabase && atOpen.message.contains("cannot hold"), "\(atOpen)")
        // Words another program wrote: a slot high-water past every slot (found by the lockfile
        // fuzz harness: it trapped converting to Int) only makes the scan read every slot.
        try Self.withWords(path) { $0.storeBytes(of: UInt64.max, toByteOffset: LockFileLayout.slotHighWaterOffset, as: UInt64.self) }
        let write = try writer.beginWrite()
        _ = try write.createTree()
        try write.commit()
        forged.pageCount = 8
        forged.catalog.page = 9  // a root outside the version
        try #require(writer.lockFile).publish(forged, slot: 0)
        #expect(throws: StorageError.self) { try follower.beginRead() }
        try follower.close()
        try writer.close()
    }

    /// A published buffer that fails its checksum (written by something else) is not adopted,
    /// and a watcher waiting on the commit signal sleeps past it instead of returning at once for
    /// it again and again (it once spun a core: it waited for the publish counter to move from
    /// the adopted one, which it already had); the next valid publish wakes it and is adopted.
    @Test func aDamagedPublishIsWaitedPastAndTheNextOneAdopted() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        let writer = try Self.writer(path)
        let follower = try Self.reader(path)
        let (lockFile, _) = try #require(try follower.followedLockFile())
        let before = try follower.beginRead().transaction

        let damaged = try writer.beginWrite()
        _ = try damaged.createTree()
        try damaged.commit()
        try Self.withWords(path) { words in
            let counter = words.load(fromByteOffset: LockFileLayout.publishedCounterOffset, as: UInt64.self)
            let checksum = LockFileLayout.publishedBuffersOffset + Int(counter & 1) * LockFileLayout.publishedBufferSize
                + 8 * (LockFileLayout.publishedWords - 1)
            words.storeBytes(of: ~words.load(fromByteOffset: checksum, as: UInt64.self), toByteOffset: checksum, as: UInt64.self)
        }
        let signal = lockFile.commitSignal
        #expect(try follower.adoptPublishedVersion() == nil)
        #expect(try follower.beginRead().transaction == before, "the damaged version is not adopted")
        #expect(!lockFile.waitForSignal(changeFrom: signal, timeoutNanoseconds: 20_000_000),
                "nothing was published since the damaged buffer: the wait times out")

        let valid = try writer.beginWrite()
        _ = try valid.createTree()
        try valid.commit()
        #expect(lockFile.waitForSignal(changeFrom: signal, timeoutNanoseconds: 10_000_000_000))
        #expect(try follower.adoptPublishedVersion() == writer.latestTransaction)
        try follower.close()
        try writer.close()
    }

    /// An encrypted file is followed too: the follower keeps decrypted pages, and the writer reuses
    /// page numbers as soon as no pin reaches them — each publish lists the runs it wrote (the
    /// written-pages ring), and the follower forgets its plaintext of them before it reads the
    /// version. Without that it would read a reused page's old plaintext (wrong values, or damage).
    /// (Writers of an encrypted file, and one joining its readers: `EncryptedProcessesTests`.)
    @Test(arguments: [false, true])
    func anEncryptedFileIsFollowed(wrapsTheRing: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let key = (0..<64).map { UInt8($0) }
        let writer = try Database.open(path: path, options: DatabaseOptions(durability: .none, encryptionKey: key))
        let table = try Self.makeTable(writer, rows: 3_000)
        let follower = try Database.open(path: path, options: DatabaseOptions(readOnly: true, durability: .none, encryptionKey: key))
        #expect(follower.followsAnotherProcess)
        var mismatched: [String] = []
        for round in 1...40 {
            // Every round rewrites every row (pages freed by the last round are reused); with
            // `wrapsTheRing`, a burst of commits past the ring's capacity comes first.
            let commits = wrapsTheRing && round % 10 == 0 ? LockFileLayout.ringCapacity + 10 : 1
            for _ in 0..<commits {
                let write = try writer.beginWrite()
                for key in stride(from: UInt64(0), to: 3_000, by: commits > 1 ? 1_000 : 1) {
                    try write.updateValue(table, key: key, column: 0, value: .int(Int64(round)), layout: Self.layout)
                }
                try write.commit()
            }
            let read = try follower.beginRead()
            let root = try read.root(of: table)
            for key in stride(from: UInt64(0), to: 3_000, by: 1_000) {
                guard let (leaf, row) = try read.row(in: root, key: key), leaf.int(row, 0) == Int64(round) else {
                    mismatched.append("round \(round), key \(key)")
                    continue
                }
            }
            if commits == 1 {
                var rows = 0
                try read.forEachCluster(in: root) { leaf in
                    for row in 0..<leaf.count where leaf.int(row, 0) != Int64(round) { mismatched.append("round \(round) row \(row)") }
                    rows += leaf.count
                    return mismatched.count < 5
                }
                #expect(rows == 3_000)
            }
        }
        #expect(mismatched.isEmpty, "\(mismatched.prefix(5))")
        try follower.close()
        try writer.close()
    }

    #if os(Linux)
    /// Deleting a realm's files happens while no process is attached and none can attach (the
    /// control lock and the exclusive `flock` held). An open that was waiting for the control
    /// lock meanwhile holds a descriptor of the unlinked lock file: it must notice and start again
    /// on the new files — attached there, where the next process finds it — not share a lock file
    /// nobody else can open.
    @Test func anOpenWaitingWhileTheFilesAreDeletedStartsAgainOnNewFiles() throws {
        let directory = try TemporaryDirectory()
        let path = try Self.makeFile(directory)
        var info = stat()
        try #require(stat(path + ".lock", &info) == 0)
        let lockInode = UInt64(info.st_ino)
        let opened = Lock<Result<Database, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let deleted = try LockFile.whileDetached(path: path + ".lock") {
            Thread {
                opened.withLock { $0 = Result { try Self.writer(path) } }
                done.signal()
            }.start()
            // Wait until the open is blocked on the control lock: /proc/locks lists a blocked
            // request as "-> OFDLCK …" with the file's device:inode.
            var waiting = false
            for _ in 0..<10_000 where !waiting {
                let locks = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
                waiting = locks.split(separator: "\n").contains { $0.contains("->") && $0.contains(":\(lockInode) ") }
                if !waiting { usleep(1_000) }
            }
            for suffix in ["", ".log", ".lock"] { unlink(path + suffix) }
            return waiting
        }
        #expect(deleted == true, "the open was seen waiting")
        done.wait()
        let writer = try #require(opened.withLock { $0 }).get()
        #expect(writer.lockFile?.isFirst == true)
        // Attached through the lock file now at the path: another writer finds it there.
        let error = try #require(throws: StorageError.self) { try Self.writer(path) }
        #expect(error.code == .incompatibleLockFile && error.message.contains("one writing process"), "\(error)")
        try writer.close()
    }
    #endif
}
