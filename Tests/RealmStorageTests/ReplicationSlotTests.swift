import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// Replication slots: a slot keeps a change record per commit and every version after its
/// position readable — across closes and reopens, while later commits run — until it confirms
/// them; confirming or dropping frees them for reuse. Checked against a model of every version's
/// rows, with the whole file verified (every page used, free or retained exactly once).
@Suite struct ReplicationSlotTests {
    static let layout = [ColumnSpec(.int), ColumnSpec(.int)]

    /// Every row of table `tree` at the version `reader` reads: key → (column 0, column 1).
    static func rows(_ reader: ReadTransaction, _ tree: TreeID) throws -> [UInt64: [Int64]] {
        var rows: [UInt64: [Int64]] = [:]
        try reader.forEachCluster(in: reader.root(of: tree)) { leaf in
            for row in 0..<leaf.count {
                let values = try (0..<2).map { column -> Int64 in
                    guard case .int(let value) = try reader.value(leaf, row: row, column: column, spec: layout[column]) else { return -1 }
                    return value
                }
                rows[leaf.key(row)] = values
            }
            return true
        }
        return rows
    }

    /// A version the test made: its transaction, the rows after it, and whether its commit
    /// edited a row (only those keep a change record).
    typealias Version = (transaction: TransactionID, rows: [UInt64: [Int64]], edited: Bool)

    /// Random inserts, updates and removes, `commits` of them (some editing nothing), each made
    /// by transaction `t` with values naming it.
    static func randomCommits(_ database: Database, tree: TreeID, model: inout [UInt64: [Int64]], commits: Int,
                              random: inout SplitMix64) throws -> [Version] {
        var versions: [Version] = []
        for _ in 0..<commits {
            let write = try database.beginWrite()
            let stamp = Int64(write.transaction)
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let key = UInt64.random(in: 0..<400, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where model[key] == nil:
                    try write.insertRow(tree, key: key, values: [.int(Int64(key)), .int(stamp)], layout: layout)
                    model[key] = [Int64(key), stamp]
                case 1 where model[key] != nil:
                    try write.updateValue(tree, key: key, column: 1, value: .int(stamp), layout: layout)
                    model[key]![1] = stamp
                case 2 where model[key] != nil:
                    _ = try write.removeRow(tree, key: key)
                    model[key] = nil
                default:
                    break
                }
            }
            let edited = !write.changeLog.isEmpty
            try write.commit()
            versions.append((write.transaction, model, edited))
        }
        return versions
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aSlotKeepsEveryLaterVersionAcrossReopens(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        var random = SplitMix64(seed: seed)
        var model: [UInt64: [Int64]] = [:]
        var database = try Database.open(path: directory.path())
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        try setup.commit()
        _ = try Self.randomCommits(database, tree: tree, model: &model, commits: 20, random: &random)
        #expect(database.spaceUsage.formatVersion == 8)

        // The slot starts at the version its creating transaction builds on.
        let create = try database.beginWrite()
        let slot = try create.createReplicationSlot(named: "sink")
        #expect(slot.confirmed == create.base.meta.transaction)
        try create.commit()
        // The slot's own commit edited no table: it keeps no record.
        var versions: [Version] = [(slot.confirmed, model, false), (create.transaction, model, false)]
        versions += try Self.randomCommits(database, tree: tree, model: &model, commits: 60, random: &random)
        #expect(database.spaceUsage.formatVersion == 9)
        #expect(database.spaceUsage.retainedBytes > 0)
        _ = try database.verify()

        // Reopened (a new process, as far as the file knows), and more commits made: every
        // version since the slot's position reads as it was.
        try database.close()
        database = try Database.open(path: directory.path())
        versions += try Self.randomCommits(database, tree: tree, model: &model, commits: 60, random: &random)
        _ = try database.verify()
        for (version, rows, _) in versions {
            let reader = try database.beginRead(atVersion: version)
            #expect(try Self.rows(reader, tree) == rows, "version \(version)")
        }

        // One change record per commit since the slot's position, each with what the commit did.
        do {
            let newest = try database.beginRead()
            let records = try newest.changeRecords(after: slot.confirmed, limit: .max)
            // One record per commit that edited a row, each built on the commit before it.
            let edits = versions.indices.filter { versions[$0].edited }
            #expect(records.map(\.transaction) == edits.map { versions[$0].transaction })
            for (index, (transaction, record)) in zip(edits, records) {
                let (before, after) = (versions[index - 1].rows, versions[index].rows)
                // The version before, or the same content stamped anew by the first write after an open.
                #expect(record.baseTransaction >= versions[index - 1].transaction && record.baseTransaction < transaction)
                let changes = RowChanges(record.changes).trees[tree] ?? RowChanges.Tree()
                #expect(changes.inserted == Set(after.keys).subtracting(before.keys), "transaction \(transaction)")
                #expect(changes.removed == Set(before.keys).subtracting(after.keys), "transaction \(transaction)")
                let updated = Set(after.keys).intersection(before.keys).filter { after[$0] != before[$0] }
                #expect(updated.isSubset(of: Set(changes.updated.keys)), "transaction \(transaction)")
            }
        }

        // Confirming half frees what only those versions used: they are no longer readable,
        // the later ones still are, and the file stops growing as pages are reused.
        let middle = versions[versions.count / 2].transaction
        let confirm = try database.beginWrite()
        try confirm.confirmReplicationSlot(named: "sink", through: middle)
        try confirm.commit()
        _ = try database.verify()
        #expect(throws: StorageError.self) { try database.beginRead(atVersion: versions[1].transaction) }
        for (version, rows, _) in versions where version >= middle {
            #expect(try Self.rows(database.beginRead(atVersion: version), tree) == rows)
        }
        #expect(try database.beginRead().changeRecords(after: 0, limit: .max).first?.transaction ?? 0 > middle)

        // Dropping the slot frees the rest; once its last record is gone the file is format 8.
        let drop = try database.beginWrite()
        try drop.dropReplicationSlot(named: "sink")
        try drop.commit()
        let report = try database.verify()
        #expect(report.retainedPages == 0)
        #expect(database.spaceUsage.retainedBytes == 0)
        #expect(database.spaceUsage.formatVersion == 8)
        let pagesBefore = database.spaceUsage.fileBytes
        _ = try Self.randomCommits(database, tree: tree, model: &model, commits: 30, random: &random)
        #expect(database.spaceUsage.fileBytes <= pagesBefore + 64 * 4096, "freed pages are reused")
        #expect(try Self.rows(database.beginRead(), tree) == model)
        try database.close()
    }

    /// Without a slot, commits keep no record and the file stays format 8: a library without
    /// replication reads it.
    @Test func noSlotNoRecords() throws {
        let directory = try TemporaryDirectory()
        let database = try Database.open(path: directory.path())
        var model: [UInt64: [Int64]] = [:]
        var random = SplitMix64(seed: 9)
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        try setup.commit()
        _ = try Self.randomCommits(database, tree: tree, model: &model, commits: 10, random: &random)
        do {
            let reader = try database.beginRead()
            #expect(reader.meta.changeRecords.isEmpty && reader.meta.slots.isEmpty)
            #expect(database.spaceUsage.formatVersion == 8)
            #expect(throws: StorageError.self) { try database.beginRead(atVersion: reader.transaction - 1) }
        }
        try database.close()
    }

    /// Names are checked and unique; dropping or confirming an unknown slot, or confirming a
    /// version that does not exist yet, throws; confirming backwards changes nothing.
    @Test func slotsAreNamedAndConfirmedForward() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        for name in ["", "has space", "dash-name", String(repeating: "a", count: 64), "é"] {
            #expect(throws: StorageError.self, "\(name)") { try write.createReplicationSlot(named: name) }
        }
        try write.createReplicationSlot(named: "a_1")
        try write.createReplicationSlot(named: String(repeating: "b", count: 63))
        #expect(throws: StorageError.self) { try write.createReplicationSlot(named: "a_1") }
        #expect(throws: StorageError.self) { try write.dropReplicationSlot(named: "missing") }
        #expect(throws: StorageError.self) { try write.confirmReplicationSlot(named: "missing", through: 1) }
        #expect(throws: StorageError.self) { try write.confirmReplicationSlot(named: "a_1", through: write.transaction) }
        try write.commit()
        let slots = try database.beginRead().replicationSlots()
        #expect(slots.map(\.name) == ["a_1", String(repeating: "b", count: 63)])
        let again = try database.beginWrite()
        try again.confirmReplicationSlot(named: "a_1", through: again.base.meta.transaction)
        try again.confirmReplicationSlot(named: "a_1", through: 1)  // backwards: ignored
        try again.commit()
        #expect(try database.beginRead().replicationSlots()[0].confirmed == again.base.meta.transaction)
    }

    /// A slot's stored form keeps every field — identity, position identity, limits and an
    /// invalidation — and bytes no slot encodes to are damage, not a slot: a zero id, an
    /// invalidation reason without a date (or the reverse), an unknown reason.
    @Test func slotsRoundTripAndMalformedSlotsAreDamage() throws {
        let slot = ReplicationSlot(number: 3, name: "sink_1", confirmed: 77, createdBy: 70, id: 0xABCD, confirmedCommit: 0x1234,
                                   recordedAtPosition: 9, maximumRetainedPages: 64, maximumLag: 5_000, invalidatedAt: 1_700_000_000_000_000_000,
                                   invalidation: .lag)
        let bytes = slot.encoded()
        #expect(try bytes.withUnsafeBytes { try ReplicationSlot.decode(number: 3, $0) } == slot)
        func damaged(_ edit: (inout [UInt8]) -> Void) -> Bool {
            var copy = bytes
            edit(&copy)
            return (try? copy.withUnsafeBytes { try ReplicationSlot.decode(number: 3, $0) }) == nil
        }
        #expect(damaged { for i in 16..<24 { $0[i] = 0 } })      // no id
        #expect(damaged { for i in 56..<64 { $0[i] = 0 } })      // invalidated without a date
        #expect(damaged { $0[64] = 0 })                          // a date without a reason
        #expect(damaged { $0[64] = 9 })                          // an unknown reason
        #expect(damaged { $0.removeLast($0.count - ReplicationSlot.headerSize) })  // no name
        #expect(!damaged { _ in })
    }

    /// A change record's stored form decodes back to the same bytes, and bytes no record encodes
    /// to are damage: a negative column (which the `replication` fuzz harness found trapping a
    /// consumer's change set, as a shift by a negative count), an unknown kind, a zero commit id,
    /// a length that does not match the counts.
    @Test func changeRecordsRoundTripAndMalformedRecordsAreDamage() throws {
        var log = RowChangeLog()
        log.record(.insert, 3, 10)
        log.record(.update, 3, 4, column: 2)
        log.record(.remove, 3, .max)
        let record = ChangeRecord(commitTime: 1_700_000_000_000_000_000, baseTransaction: 9, baseCatalog: TreeRoot(page: 5, transaction: 9, count: 2),
                                  changes: log, retained: [FreedRun(run: PageRun(start: 40, count: 3), createdBy: 7, freedBy: 10)],
                                  commitID: 0xC0FFEE, recordedThrough: 12)
        let bytes = record.encoded()
        #expect(try bytes.withUnsafeBytes { try ChangeRecord.decode($0, transaction: 10) }.encoded() == bytes)
        func damaged(_ edit: (inout [UInt8]) -> Void) -> Bool {
            var copy = bytes
            edit(&copy)
            return (try? copy.withUnsafeBytes { try ChangeRecord.decode($0, transaction: 10) }) == nil
        }
        let second = ChangeRecord.headerSize + ChangeRecord.changeSize  // the update entry
        #expect(damaged { for i in 24..<28 { $0[second + i] = 0xFF } })  // column -1
        #expect(damaged { $0[second + 28] = 9 })                          // an unknown kind
        #expect(damaged { for i in 48..<56 { $0[i] = 0 } })               // no commit id
        #expect(damaged { $0.removeLast() })
        #expect(!damaged { _ in })

        // Runs whose counts overflow together (the replication fuzz harness found the total
        // trapping): the total saturates.
        var huge = record
        huge.retained = [FreedRun(run: PageRun(start: 1, count: .max - 1), createdBy: 7, freedBy: 10),
                         FreedRun(run: PageRun(start: 2, count: 5), createdBy: 7, freedBy: 10)]
        #expect(huge.retainedPages == .max)
    }

    /// Each record names its commit with a random id, and the meta's recorded-pages counter only
    /// grows while replication state exists — freeing records does not lower it — so a slot's
    /// retained pages are the counter's growth since its position.
    @Test func recordsCarryCommitIdsAndTheRecordedCounterOnlyGrows() throws {
        let directory = try TemporaryDirectory()
        let database = try Database.open(path: directory.path())
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        try setup.commit()
        let create = try database.beginWrite()
        try create.createReplicationSlot(named: "sink")
        try create.commit()  // edits no table: no record
        var random = SplitMix64(seed: 11)
        var model: [UInt64: [Int64]] = [:]
        let versions = try Self.randomCommits(database, tree: tree, model: &model, commits: 40, random: &random)
        let reader = try database.beginRead()
        let records = try reader.changeRecords(after: 0, limit: 1_000)
        #expect(records.map(\.transaction) == versions.filter(\.edited).map(\.transaction))
        #expect(Set(records.map(\.record.commitID)).count == records.count)
        #expect(records.map(\.record.recordedThrough) == records.map(\.record.recordedThrough).sorted())
        #expect(reader.meta.recordedPages == records.last?.record.recordedThrough)
        #expect(reader.meta.recordedPages >= reader.meta.retainedPages)
        let recordedBefore = reader.meta.recordedPages
        withExtendedLifetime(reader) {}
        // Confirming frees records; the counter stays.
        let confirm = try database.beginWrite()
        try confirm.confirmReplicationSlot(named: "sink", through: versions[30].transaction)
        try confirm.commit()
        let after = try database.beginRead()
        #expect(after.meta.recordedPages == recordedBefore)
        #expect(after.meta.retainedPages < recordedBefore)
        let slot = try #require(try after.replicationSlots().first)
        let confirmedRecord = records.last { $0.transaction <= versions[30].transaction }!
        #expect(slot.confirmedCommit == confirmedRecord.record.commitID)
        #expect(slot.recordedAtPosition == confirmedRecord.record.recordedThrough)
        #expect(try after.replicationPosition(slot.confirmed, commit: slot.confirmedCommit) == .retained)
        #expect(try after.replicationPosition(slot.confirmed, commit: slot.confirmedCommit &+ 1) == .otherHistory)
    }
}
