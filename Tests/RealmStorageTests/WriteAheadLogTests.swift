import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// The write-ahead log under power cuts: every acknowledged commit survives losing any subset
/// of the data file's unsynced writes (torn pages and a lost growth included), a torn or failed
/// append is not a commit, and a log is replayed only onto its own file.
@Suite struct WriteAheadLogTests {
    typealias Model = FaultInjectionTests.Model

    /// Random small commits (a few group commits, a few too large for the log, enough bytes for
    /// several checkpoints), torn appends along the way, then a power cut that keeps, loses or
    /// tears each page written since the data file's last sync. The reopened file holds exactly
    /// the acknowledged commits.
    @Test(arguments: [(1, false), (2, false), (3, false), (4, true), (5, true)] as [(UInt64, Bool)])
    func everyAcknowledgedCommitSurvivesAPowerCut(seed: UInt64, encrypted: Bool) async throws {
        try await BlockingCall.offThePool {
            let directory = try TemporaryDirectory()
            let path = directory.path()
            let key: [UInt8]? = encrypted ? (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) } : nil
            let power = PowerCut(path: path)
            let disk = power.disk
            var generator = SplitMix64(seed: seed)
            var model: Model = [:]
            var torn = 0
            var direct = 0
            do {
                let database = try Database.open(path: path, options: DatabaseOptions(faults: disk, encryptionKey: key))
                let tree = try Self.createTree(database, &model, &generator, keys: 0)
                for version in 1...320 as ClosedRange<UInt64> {
                    var scratch = model
                    let event = generator.next() % 40
                    if event == 0 {
                        // Group commit: three transactions, one batch, one record.
                        for step in 0..<3 as Range<UInt64> {
                            let write = try database.beginWrite()
                            FaultInjectionTests.change(write, tree, &scratch[tree]!, &generator, version: version * 4 + step, keys: 5)
                            _ = try write.prepare()
                        }
                        try database.flush()
                        model = scratch
                        continue
                    }
                    let write = try database.beginWrite()
                    FaultInjectionTests.change(write, tree, &scratch[tree]!, &generator, version: version * 4, keys: 1 + Int(generator.next() % 12))
                    if event == 1 {
                        // Larger than a record may be: written in place, after a checkpoint, over
                        // pages the logged commits freed.
                        Self.putLargeValues(write, tree, &scratch[tree]!, version: version * 4)
                        direct += 1
                    }
                    if event == 2 {
                        // A torn append: the commit fails, nothing of it is kept, the database goes on.
                        disk.tearNextLogWrite(after: Int(generator.next() % 4_000))
                        #expect(throws: StorageError.self) { try write.commit() }
                        torn += 1
                        continue
                    }
                    try write.commit()
                    model = scratch
                }
                #expect(disk.count([.sync]) >= 3, "checkpoints and in-place batches sync the data file")
                let cut = try power.cut(&generator)
                #expect(cut.changedPages > 0, "the cut found unsynced writes to lose")
            }
            let logBytes = (try? FileManager.default.attributesOfItem(atPath: path + ".log")[.size] as? Int) ?? 0
            #expect(logBytes <= Int(WriteAheadLog.checkpointBytes) + WriteAheadLog.recordLimit + (1 << 20) + 4096,
                    "the log stays bounded: \(logBytes) bytes")
            let reopened = try Database.open(path: path, options: DatabaseOptions(encryptionKey: key))
            try FaultInjectionTests.expectContent(reopened, model, "seed \(seed) after a power cut (\(torn) torn appends, \(direct) in place)")
        }
    }

    /// Creates a tree holding `keys` random entries, in one commit, mirrored in `model`.
    static func createTree(_ database: Database, _ model: inout Model, _ generator: inout SplitMix64, keys: Int) throws -> TreeID {
        let write = try database.beginWrite()
        let tree = try write.createTree()
        model[tree] = [:]
        FaultInjectionTests.change(write, tree, &model[tree]!, &generator, version: 0, keys: keys)
        try write.commit()
        return tree
    }

    /// Creates a realm at `path`, commits five small changes (logged), and "crashes": every later
    /// write fails, so the log keeps its records. Returns the committed content.
    static func crashWithCommitsInTheLog(path: String, _ generator: inout SplitMix64) throws -> Model {
        let disk = FaultInjector()
        let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
        var model: Model = [:]
        let tree = try createTree(database, &model, &generator, keys: 150)
        for version in 1...5 as ClosedRange<UInt64> {
            let write = try database.beginWrite()
            FaultInjectionTests.change(write, tree, &model[tree]!, &generator, version: version, keys: 15)
            try write.commit()
        }
        disk.die()
        return model
    }

    /// Replaces the content of the file at `path`, keeping the file (its device and inode), as
    /// `cp` onto an existing file does.
    static func overwriteInPlace(_ path: String, with bytes: some Sequence<UInt8>) throws {
        let data = Data(bytes)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: data)
        try handle.truncate(atOffset: UInt64(data.count))
        try handle.close()
    }

    /// Puts 1.5 MB of 6 KB values (keys from 10,000, beyond `FaultInjectionTests.change`'s),
    /// so the batch is too large for the log.
    static func putLargeValues(_ write: WriteTransaction, _ tree: TreeID, _ model: inout [UInt64: [UInt8]], version: UInt64) {
        for key in 10_000..<10_250 as Range<UInt64> {
            let value = testValue(key: key, version: version, length: 6_000)
            _ = try? write.put(tree, key: key, value: value)
            model[key] = value
        }
    }

    /// An in-place batch after logged ones reuses pages they freed: the log must be emptied
    /// first, or a replay after a power cut writes the logged pages over the new ones.
    @Test func aBatchWrittenInPlaceIsNeverOverwrittenByAReplay() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let power = PowerCut(path: path)
        let disk = power.disk
        var generator = SplitMix64(seed: 51)
        var model: Model = [:]
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            let tree = try Self.createTree(database, &model, &generator, keys: 400)
            for version in 1...30 as ClosedRange<UInt64> {
                let write = try database.beginWrite()
                FaultInjectionTests.change(write, tree, &model[tree]!, &generator, version: version, keys: 8)
                try write.commit()
            }
            let syncs = disk.count([.sync])
            let large = try database.beginWrite()
            Self.putLargeValues(large, tree, &model[tree]!, version: 31)
            try large.commit()
            #expect(disk.count([.sync]) >= syncs + 2, "written in place: a checkpoint, then the batch's own sync")
            _ = try power.cut(&generator)
        }
        let reopened = try Database.open(path: path)
        try FaultInjectionTests.expectContent(reopened, model, "after the in-place batch")
    }

    /// A record whose append was written but whose sync never finished may reach the disk with
    /// a page missing: it is not a commit, so nothing of it is replayed, and a read-only open,
    /// finding no valid record, opens the previous version.
    @Test func aRecordWithAPageMissingIsNotReplayed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let disk = FaultInjector()
        var generator = SplitMix64(seed: 61)
        var model: Model = [:]
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            _ = try Self.createTree(database, &model, &generator, keys: 300)
            try database.close()
        }
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            var scratch = model
            let write = try database.beginWrite()
            FaultInjectionTests.change(write, 1, &scratch[1]!, &generator, version: 1, keys: 30)
            disk.failLogSyncs()
            #expect(throws: StorageError.self) { try write.commit() }
        }
        // The record is the generation's first (the open appended to the clean log); its last
        // image is the meta page. Lose the image before it.
        let logPath = path + ".log"
        var log = Array(try Data(contentsOf: URL(fileURLWithPath: logPath)))
        let page = PageLayout.pageSize
        let record = try #require(log.withUnsafeBytes { LogLayout.decodeRecordHeader($0.baseAddress! + page, sealing: .checksum) })
        #expect(record.entries.last?.page ?? 9 < 2 && record.entries.count >= 2, "data pages, then the meta page")
        let last = 1 + record.headerPages + Int(record.imagePages) - 1
        for index in ((last - 1) * page)..<(last * page) { log[index] = 0 }
        try Data(log).write(to: URL(fileURLWithPath: logPath))
        let readOnly = try Database.open(path: path, options: DatabaseOptions(readOnly: true))
        try FaultInjectionTests.expectContent(readOnly, model, "the damaged record is not replayed", verify: false)
    }

    /// A group commit's later transaction can free pages an earlier one took at the end of the
    /// file, so the version's page count exceeds every page the record holds; if the file's
    /// growth is lost in a power cut, replay must grow it back, or the version looks truncated.
    @Test func aReplayGrowsTheFileToItsVersionsLength() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let power = PowerCut(path: path)
        let disk = power.disk
        var generator = SplitMix64(seed: 71)
        var model: Model = [:]
        var pageCount: UInt64 = 0
        var written: UInt64 = 0
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            let tree = try Self.createTree(database, &model, &generator, keys: 400)
            for version in 1...10 as ClosedRange<UInt64> {  // frees pages, reusable once durable
                let write = try database.beginWrite()
                FaultInjectionTests.change(write, tree, &model[tree]!, &generator, version: version, keys: 20)
                try write.commit()
            }
            try database.close()
        }
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            let before = database.pageCount
            let grow = try database.beginWrite()
            _ = try grow.put(1, key: 20_000, value: testValue(key: 20_000, version: 1, length: 30_000))  // a run at the end
            _ = try grow.prepare()
            let shrink = try database.beginWrite()
            _ = try shrink.remove(1, key: 20_000)
            _ = try shrink.prepare()
            try database.flush()
            pageCount = database.pageCount
            written = UInt64((try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / UInt64(PageLayout.pageSize)
            #expect(pageCount > before, "the version's length includes the freed run")
            _ = try power.cut(&generator, loseGrowth: true)
        }
        let size = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        #expect(UInt64(size / PageLayout.pageSize) < pageCount, "the cut lost the growth (\(written) pages before)")
        let reopened = try Database.open(path: path)
        #expect(reopened.pageCount == pageCount)
        try FaultInjectionTests.expectContent(reopened, model, "after losing the growth")
    }

    /// A crash in the middle of an append: the torn record is not a commit, whatever part of it
    /// reached the log, and the commits before it are all there.
    @Test(arguments: [0, 100, 4_096, 4_200, 9_000, 30_000])
    func aCrashDuringAnAppendKeepsEveryCommitBeforeIt(tornAt bytes: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let power = PowerCut(path: path)
        let disk = power.disk
        var generator = SplitMix64(seed: UInt64(bytes) + 11)
        var model: Model = [:]
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            let tree = try Self.createTree(database, &model, &generator, keys: 0)
            for version in 1...20 as ClosedRange<UInt64> {
                let write = try database.beginWrite()
                FaultInjectionTests.change(write, tree, &model[tree]!, &generator, version: version, keys: 6)
                try write.commit()
            }
            var scratch = model
            let write = try database.beginWrite()
            FaultInjectionTests.change(write, tree, &scratch[tree]!, &generator, version: 99, keys: 40)
            disk.tearNextLogWrite(after: bytes, thenDie: true)
            #expect(throws: StorageError.self) { try write.commit() }
            _ = try power.cut(&generator)
        }
        let reopened = try Database.open(path: path)
        try FaultInjectionTests.expectContent(reopened, model, "torn at byte \(bytes)")
    }

    /// A failed sync of the log stops writes (the record's fate is unknown); reopening finds the
    /// commits before it, and the failed one either whole or not at all.
    @Test func aFailedLogSyncIsStickyAndTheFileHoldsOneWholeVersion() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let power = PowerCut(path: path)
        let disk = power.disk
        var generator = SplitMix64(seed: 21)
        var model: Model = [:]
        var attempted: Model = [:]
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            let tree = try Self.createTree(database, &model, &generator, keys: 50)
            attempted = model
            let write = try database.beginWrite()
            FaultInjectionTests.change(write, tree, &attempted[tree]!, &generator, version: 1, keys: 10)
            disk.failLogSyncs()
            #expect(throws: StorageError.self) { try write.commit() }
            #expect(throws: StorageError.self) { try database.beginWrite() }
            _ = try power.cut(&generator)
        }
        let reopened = try Database.open(path: path)
        let content = try FaultInjectionTests.content(of: reopened.beginRead())
        #expect(content == model || content == attempted, "the file holds a version that never existed")
        #expect(throws: Never.self) { try reopened.verify() }
    }

    /// Commits only the log holds (a crash before any checkpoint) are replayed by a read-only
    /// open into memory — neither file changes — and by a writable open onto the file, after
    /// which the log is empty and a clean close cuts it back to its header.
    @Test(arguments: [false, true])
    func aReadOnlyOpenReplaysTheLogInMemory(encrypted: Bool) throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let key: [UInt8]? = encrypted ? (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 5 &+ 3) } : nil
        let power = PowerCut(path: path)
        let disk = power.disk
        var generator = SplitMix64(seed: 31)
        var model: Model = [:]
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk, encryptionKey: key))
            let tree = try Self.createTree(database, &model, &generator, keys: 0)
            for version in 1...12 as ClosedRange<UInt64> {
                let write = try database.beginWrite()
                FaultInjectionTests.change(write, tree, &model[tree]!, &generator, version: version, keys: 15)
                try write.commit()
            }
            _ = try power.cut(&generator, loseGrowth: true)
        }
        let files = try [path, path + ".log"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        do {
            let readOnly = try Database.open(path: path, options: DatabaseOptions(readOnly: true, encryptionKey: key))
            #expect(readOnly.recordsReplayed >= 12, "the commits after the first are only in the log")
            try FaultInjectionTests.expectContent(readOnly, model, "read-only, replayed in memory")
        }
        #expect(try [path, path + ".log"].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == files, "a read-only open changed a file")
        do {
            let writable = try Database.open(path: path, options: DatabaseOptions(encryptionKey: key))
            #expect(writable.recordsReplayed >= 12)
            try FaultInjectionTests.expectContent(writable, model, "replayed onto the file")
            try writable.close()
        }
        let logBytes = try FileManager.default.attributesOfItem(atPath: path + ".log")[.size] as? Int
        #expect(logBytes == PageLayout.pageSize, "a clean close cuts the log back to its header")
        let readOnly = try Database.open(path: path, options: DatabaseOptions(readOnly: true, encryptionKey: key))
        #expect(readOnly.recordsReplayed == 0)
        try FaultInjectionTests.expectContent(readOnly, model, "read-only after recovery")
    }

    /// A log left beside a file that was then replaced (here by another realm file, renamed over
    /// it) describes another file: it is never replayed onto the new one.
    @Test func aLogIsNeverReplayedOntoAnotherFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let other = directory.path("other.realm")
        var generator = SplitMix64(seed: 41)
        var otherModel: Model = [:]
        do {
            let database = try Database.open(path: other)
            let write = try database.beginWrite()
            let tree = try write.createTree()
            otherModel[tree] = [:]
            FaultInjectionTests.change(write, tree, &otherModel[tree]!, &generator, version: 7, keys: 40)
            try write.commit()
            try database.close()
        }
        let disk = FaultInjector()
        do {
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            var model: [UInt64: [UInt8]] = [:]
            var tree: TreeID = 0
            for version in 1...5 as ClosedRange<UInt64> {
                let write = try database.beginWrite()
                if version == 1 { tree = try write.createTree() }
                FaultInjectionTests.change(write, tree, &model, &generator, version: version, keys: 20)
                try write.commit()
            }
            disk.die()  // the log keeps its records: nothing checkpoints
        }
        #expect(rename(other, path) == 0)
        let reopened = try Database.open(path: path)
        try FaultInjectionTests.expectContent(reopened, otherModel, "the replaced file")
    }

    /// A realm file deleted without its log, and a new one created at its path (often with the
    /// deleted file's inode, which the log names): the log's commits are never applied to it.
    @Test func aLogLeftBesideADeletedFileIsNeverReplayedOntoANewOne() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var generator = SplitMix64(seed: 81)
        for round in 0..<4 {
            _ = try Self.crashWithCommitsInTheLog(path: path, &generator)
            unlink(path)
            unlink(path + ".lock")
            let fresh = try Database.open(path: path)
            try FaultInjectionTests.expectContent(fresh, [:], "round \(round): the new file")
            try fresh.close()
            unlink(path)
            unlink(path + ".lock")
        }
    }

    /// An older copy of the file written over it in place (a restored backup keeps the file's
    /// device and inode) after a crash left commits in the log: those commits continue a later
    /// version, so they are not applied, and the file opens as the copy.
    @Test func anOlderCopyWrittenOverTheFileIsNotReplayedOnto() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        var generator = SplitMix64(seed: 91)
        var model: Model = [:]
        var tree: TreeID = 0
        do {
            let database = try Database.open(path: path)
            tree = try Self.createTree(database, &model, &generator, keys: 300)
            try database.close()
        }
        let backup = try Data(contentsOf: URL(fileURLWithPath: path))
        do {
            let disk = FaultInjector()
            let database = try Database.open(path: path, options: DatabaseOptions(faults: disk))
            var later = model
            // Past a checkpoint, so the log's generation begins after the copy's version.
            for version in 1...400 as ClosedRange<UInt64> {
                let write = try database.beginWrite()
                FaultInjectionTests.change(write, tree, &later[tree]!, &generator, version: version, keys: 10)
                try write.commit()
            }
            #expect(disk.count([.sync]) >= 2, "a checkpoint synced the data file")
            disk.die()
        }
        try Self.overwriteInPlace(path, with: backup)
        let reopened = try Database.open(path: path)
        #expect(reopened.recordsReplayed == 0)
        try FaultInjectionTests.expectContent(reopened, model, "the restored copy")
    }

    /// Another realm file's bytes written over the file in place (same device and inode), newer
    /// than the log's base: its id differs, so the log's commits are not applied to it.
    @Test func anotherRealmWrittenOverTheFileIsNotReplayedOnto() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path()
        let other = directory.path("other.realm")
        var generator = SplitMix64(seed: 101)
        var otherModel: Model = [:]
        do {
            // Three opens: each continues 2^20 ids above the last, past the first file's base.
            for round in 0..<3 {
                let database = try Database.open(path: other)
                if round == 0 { _ = try Self.createTree(database, &otherModel, &generator, keys: 100) }
                let write = try database.beginWrite()
                FaultInjectionTests.change(write, 1, &otherModel[1]!, &generator, version: UInt64(round + 1), keys: 10)
                try write.commit()
                try database.close()
            }
        }
        _ = try Self.crashWithCommitsInTheLog(path: path, &generator)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: other))
        try Self.overwriteInPlace(path, with: bytes)
        let reopened = try Database.open(path: path)
        #expect(reopened.recordsReplayed == 0)
        try FaultInjectionTests.expectContent(reopened, otherModel, "the other realm's bytes")
    }

    /// The record format: headers round-trip, and a record header with a wrong code, salt or
    /// sequence number, or an entry out of range, is refused — sealed with the checksum, and with
    /// an encrypted file's keyed MAC, where a header whose checksum an attacker recomputed (no
    /// key needed for that) is refused too.
    @Test(arguments: [false, true])
    func recordHeadersRoundTripAndDamageIsRefused(keyed: Bool) throws {
        let cipher = try #require(PageCipher(userKey: Array(0..<64), salt: Array(100..<132)))
        let sealing: LogLayout.Sealing = keyed ? .keyed(cipher) : .checksum
        // 200 entries: two header pages (a page holds 168), and no more than a record can hold.
        let entries = (0..<200).map { LogLayout.Entry(page: 2 + UInt64($0) * 3, pages: 1 + UInt64($0 % 4 == 0 ? 1 : 0), transaction: 1_000 + UInt64($0)) }
        let header = LogLayout.RecordHeader(salt: 0xABCD, sequence: 9, transaction: 2_000, pageCount: 5_000, entries: entries)
        #expect(header.headerPages == 2)
        let bytes = header.headerPages * PageLayout.pageSize
        let pages = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: PageLayout.pageSize)
        defer { pages.deallocate() }
        pages.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        LogLayout.encodeRecordHeader(header, into: pages, sealing: sealing)
        #expect(LogLayout.claimedHeaderPages(pages, salt: 0xABCD, sequence: 9) == 2)
        #expect(LogLayout.claimedHeaderPages(pages, salt: 0xABCE, sequence: 9) == nil, "another generation's record")
        #expect(LogLayout.claimedHeaderPages(pages, salt: 0xABCD, sequence: 8) == nil, "out of sequence")
        // A count no record can hold (each entry is a page of images, at most 1 MiB of them),
        // with a matching header size: refused before anything that size is allocated.
        pages.setU32(40, 1 << 30)
        pages.setU32(44, UInt32(LogLayout.RecordHeader.pages(forEntries: 1 << 30)))
        #expect(LogLayout.claimedHeaderPages(pages, salt: 0xABCD, sequence: 9) == nil, "an entry count beyond any record")
        LogLayout.encodeRecordHeader(header, into: pages, sealing: sealing)
        #expect(LogLayout.decodeRecordHeader(pages, sealing: sealing) == header)
        for offset in [8, 33, 64, 64 + 24 * 150 + 3, 64 + 24 * 199 + 23] {
            pages.storeBytes(of: pages.load(fromByteOffset: offset, as: UInt8.self) ^ 0x10, toByteOffset: offset, as: UInt8.self)
            #expect(LogLayout.decodeRecordHeader(pages, sealing: sealing) == nil, "a flipped bit at \(offset) passes")
            pages.storeBytes(of: pages.load(fromByteOffset: offset, as: UInt8.self) ^ 0x10, toByteOffset: offset, as: UInt8.self)
        }
        #expect(LogLayout.decodeRecordHeader(pages, sealing: sealing) == header)

        let logHeader = LogLayout.Header(salt: 42, identity: LogLayout.FileIdentity(device: 3, inode: 77), base: 1 << 21, fileID: 0xF11E)
        LogLayout.encodeHeader(logHeader, into: pages, sealing: sealing)
        #expect(LogLayout.decodeHeader(pages, sealing: sealing) == logHeader)
        pages.storeBytes(of: 43 as UInt64, toByteOffset: 24, as: UInt64.self)
        #expect(LogLayout.decodeHeader(pages, sealing: sealing) == nil)
        if keyed {
            // Forged without the key: a changed header with its checksum recomputed.
            LogLayout.encodeHeader(logHeader, into: pages, sealing: sealing)
            pages.storeBytes(of: 43 as UInt64, toByteOffset: 24, as: UInt64.self)
            pages.setU64(0, PageChecksum.compute(UnsafeRawPointer(pages), length: LogLayout.headerBytes))
            #expect(LogLayout.decodeHeader(pages, sealing: sealing) == nil, "a forged log header")
            LogLayout.encodeRecordHeader(header, into: pages, sealing: sealing)
            pages.setU64(32, 2_001)
            pages.setU64(0, PageChecksum.compute(UnsafeRawPointer(pages), length: LogLayout.headerBytes + LogLayout.entryBytes * entries.count))
            #expect(LogLayout.decodeRecordHeader(pages, sealing: sealing) == nil, "a forged record header")
            LogLayout.encodeHeader(logHeader, into: pages, sealing: .checksum)
            #expect(LogLayout.decodeHeader(pages, sealing: sealing) == nil, "an unencrypted file's log header")
            LogLayout.encodeHeader(logHeader, into: pages, sealing: sealing)
        }
        // A generation continues the file with its id holding its base or newer, or a torn meta slot.
        typealias State = LogLayout.DataFileState
        #expect(State(newest: 1 << 21, fileID: 0xF11E, hasInvalidSlot: false).continues(logHeader))
        #expect(!State(newest: (1 << 21) - 1, fileID: 0xF11E, hasInvalidSlot: false).continues(logHeader))
        #expect(State(newest: 5, fileID: 0xF11E, hasInvalidSlot: true).continues(logHeader))
        #expect(State(newest: nil, fileID: nil, hasInvalidSlot: true).continues(logHeader), "both metas torn: the inode decides")
        #expect(!State(newest: 1 << 22, fileID: 0xF11F, hasInvalidSlot: false).continues(logHeader), "another file's id")
        #expect(!State(newest: 1 << 22, fileID: 0xF11F, hasInvalidSlot: true).continues(logHeader), "another file's id, torn")
        #expect(State(newest: 1 << 22, fileID: 0, hasInvalidSlot: false).continues(logHeader), "a file from before ids")
    }
}

extension FaultInjector {
    /// The next log write writes only its first `bytes` bytes, then fails; with `thenDie`, the
    /// process dies with it.
    func tearNextLogWrite(after bytes: Int, thenDie: Bool = false) {
        inject(.partial(bytes: bytes, errno: EIO), into: [.logWrite], then: thenDie ? .dead : .once)
    }

    /// The next log sync fails, and the process dies with it (a dead process takes nothing
    /// back: the record it appended stays in the log).
    func failLogSyncs() { inject(.fail(errno: EIO), into: [.logSync], then: .dead) }
}

/// A power cut. It remembers the data file and the log as of their last syncs through `disk`
/// (taken as a sync begins: every write before it is complete), and ``cut(_:loseGrowth:)``
/// turns both files back into what a power cut could leave: each page written since then kept,
/// lost or torn, and any growth since then possibly lost. After the cut the disk is dead, so
/// dropping the `Database` — which flushes and checkpoints in `deinit` — writes nothing: the
/// process is gone.
final class PowerCut: Sendable {
    let path: String
    /// The database's disk: give it to `DatabaseOptions.faults`.
    let disk = FaultInjector()
    private let synced: Lock<(data: [UInt8], log: [UInt8])>

    init(path: String) {
        self.path = path
        synced = Lock((Self.bytes(of: path) ?? [], Self.bytes(of: path + ".log") ?? []))
        // Weak: the disk holds the observer, and the test holds both.
        disk.observeSyncs { [weak self] operation in
            guard let self else { return }
            if operation == .sync, let data = Self.bytes(of: path) { synced.withLock { $0.data = data } }
            if operation == .logSync, let log = Self.bytes(of: path + ".log") { synced.withLock { $0.log = log } }
        }
    }

    private static func bytes(of path: String) -> [UInt8]? { try? Array(Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Kills the disk, then rewrites the data file and the log as a power cut could leave them.
    /// Returns how many pages differed from the last synced states. With `loseGrowth`, the
    /// data file falls back to its synced length.
    func cut(_ generator: inout SplitMix64, loseGrowth: Bool = false) throws -> (changedPages: Int, lost: Int, torn: Int) {
        disk.die()
        let (synced, syncedLog) = synced.withLock { ($0.data, $0.log) }
        let data = try Self.cut(path, synced: synced, &generator, loseGrowth: loseGrowth)
        let log = try Self.cut(path + ".log", synced: syncedLog, &generator)
        return (data.changed + log.changed, data.lost + log.lost, data.torn + log.torn)
    }

    /// Rewrites `path` in place (a log names its file by device and inode, not by path): each
    /// page that differs from `synced` kept, lost or torn, and growth possibly lost.
    private static func cut(_ path: String, synced: [UInt8], _ generator: inout SplitMix64,
                            loseGrowth: Bool = false) throws -> (changed: Int, lost: Int, torn: Int) {
        guard var current = try? Array(Data(contentsOf: URL(fileURLWithPath: path))) else { return (0, 0, 0) }
        let page = PageLayout.pageSize
        var changed = 0, lost = 0, torn = 0
        for start in stride(from: 0, to: current.count, by: page) {
            let end = min(start + page, current.count)
            let old: ArraySlice<UInt8> = start < synced.count ? synced[start..<min(end, synced.count)] : []
            guard old != current[start..<end] else { continue }
            changed += 1
            switch generator.next() % 3 {
            case 0: continue  // the write reached the disk
            case 1:  // lost: the synced bytes, or zeros past the synced length
                lost += 1
                for index in start..<end { current[index] = index < synced.count ? synced[index] : 0 }
            default:  // torn: the first half reached the disk
                torn += 1
                for index in (start + page / 2)..<end { current[index] = index < synced.count ? synced[index] : 0 }
            }
        }
        if current.count > synced.count && (loseGrowth || generator.next() % 2 == 0) { current.removeLast(current.count - synced.count) }
        try WriteAheadLogTests.overwriteInPlace(path, with: current)
        return (changed, lost, torn)
    }
}
