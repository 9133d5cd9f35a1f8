import Foundation

/// What one commit did, kept in the file while a replication slot may still need it: when it was
/// made, the version it was built on (so that version can be read), the rows it inserted,
/// updated and removed (its ``RowChangeLog``), and the pages of older versions it stopped using
/// — which stay out of the free list until every slot has confirmed the commit, so the version
/// before it stays readable after a restart.
///
/// Stored in the change-records tree (``MetaPage/changeRecords``), keyed by the commit's
/// transaction, as (little-endian):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | commit time: nanoseconds since 1970 |
/// | 8 | 8 | base: the transaction of the version the commit was built on |
/// | 16 | 24 | the base version's catalog root (page, transaction, entry count) |
/// | 40 | 4 | change entry count *n* |
/// | 44 | 4 | retained run count *m* |
/// | 48 | 8 | commit id: random, nonzero (see ``ReplicationSlot``, "Identity") |
/// | 56 | 8 | the meta's recorded-pages counter after this record |
/// | 64 | 32 *n* | changes: tree, first key, key count, column (i32), kind (u8: insert, update, remove, drop), 3 zero bytes |
/// | 64 + 32 *n* | 24 *m* | retained runs: first page, page count, the transaction that wrote them |
///
/// The version a commit made is readable from the next record's base root, or, for the newest
/// commit, from the meta page.
package struct ChangeRecord: Sendable {
    /// When the commit was prepared, in nanoseconds since 1970.
    package var commitTime: Int64
    /// The version the commit was built on.
    package var baseTransaction: TransactionID
    /// The catalog root of that version.
    package var baseCatalog: TreeRoot
    /// The rows the commit edited.
    package var changes: RowChangeLog
    /// The pages of older versions the commit stopped using, kept until every slot confirmed it.
    var retained: [FreedRun]
    /// Random and nonzero: names this commit, which its version number alone does not (a file
    /// restored from a copy reuses numbers; see ``ReplicationSlot``).
    package var commitID: UInt64
    /// ``MetaPage/recordedPages`` once this record is stored: a slot at this commit's version
    /// counts the pages later records retain from here.
    package var recordedThrough: UInt64

    /// The number of pages the record keeps out of the free list. Saturating: a record decoded
    /// from a damaged or hostile file may claim runs whose counts overflow (the replication fuzz
    /// harness found one that trapped here); such a record is refused where its runs are checked
    /// against the file, and its total only has to not trap.
    package var retainedPages: UInt64 {
        retained.reduce(0) { total, freed in
            let (sum, overflow) = total.addingReportingOverflow(freed.run.count)
            return overflow ? .max : sum
        }
    }

    static let headerSize = 64
    static let changeSize = 32
    static let runSize = 24

    package func encoded() -> [UInt8] {
        let entries = changes.entries
        var bytes = [UInt8](repeating: 0, count: Self.headerSize + entries.count * Self.changeSize + retained.count * Self.runSize)
        bytes.withUnsafeMutableBytes { buffer in
            func store<T: FixedWidthInteger>(_ value: T, _ offset: Int) { buffer.storeBytes(of: value.littleEndian, toByteOffset: offset, as: T.self) }
            store(commitTime, 0)
            store(baseTransaction, 8)
            store(baseCatalog.page, 16)
            store(baseCatalog.transaction, 24)
            store(baseCatalog.count, 32)
            store(UInt32(entries.count), 40)
            store(UInt32(retained.count), 44)
            store(commitID, 48)
            store(recordedThrough, 56)
            var offset = Self.headerSize
            for entry in entries {
                store(entry.tree, offset)
                store(entry.key, offset + 8)
                store(entry.count, offset + 16)
                store(entry.column, offset + 24)
                store(entry.kind.rawValue, offset + 28)
                offset += Self.changeSize
            }
            for run in retained {
                store(run.run.start, offset)
                store(run.run.count, offset + 8)
                store(run.createdBy, offset + 16)
                offset += Self.runSize
            }
        }
        return bytes
    }

    /// A record's fixed fields, read without decoding its changes and runs (a lag gauge, a
    /// slot's retention limits and a position's identity each read one; a record can hold
    /// thousands of changes).
    package struct Summary: Sendable {
        package var commitTime: Int64
        package var commitID: UInt64
        package var recordedThrough: UInt64
    }

    /// The fixed fields of an encoded record (see ``Summary``).
    package static func summary(of bytes: UnsafeRawBufferPointer, transaction: TransactionID) throws -> Summary {
        guard bytes.count >= headerSize else {
            throw StorageError(.invalidDatabase, "Realm file is damaged: the change record of transaction \(transaction) is malformed")
        }
        func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T { T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        return Summary(commitTime: load(0, as: Int64.self), commitID: load(48, as: UInt64.self), recordedThrough: load(56, as: UInt64.self))
    }

    /// Decodes the record of commit `transaction`; throws for bytes no record encodes to (damage).
    package static func decode(_ bytes: UnsafeRawBufferPointer, transaction: TransactionID) throws -> ChangeRecord {
        func damaged() -> StorageError {
            StorageError(.invalidDatabase, "Realm file is damaged: the change record of transaction \(transaction) is malformed")
        }
        guard bytes.count >= headerSize else { throw damaged() }
        func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T { T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        let changeCount = Int(load(40, as: UInt32.self)), runCount = Int(load(44, as: UInt32.self))
        guard bytes.count == headerSize + changeCount * changeSize + runCount * runSize, load(48, as: UInt64.self) != 0 else { throw damaged() }
        var log = RowChangeLog()
        var offset = headerSize
        for _ in 0..<changeCount {
            // A column is a column number (a log clamps it to Int32): never negative.
            guard let kind = RowChangeLog.Kind(rawValue: load(offset + 28, as: UInt8.self)), load(offset + 24, as: Int32.self) >= 0
            else { throw damaged() }
            log.appendStored(RowChangeLog.Entry(tree: load(offset, as: UInt64.self), key: load(offset + 8, as: UInt64.self),
                                          count: load(offset + 16, as: UInt64.self), column: load(offset + 24, as: Int32.self), kind: kind))
            offset += changeSize
        }
        var retained: [FreedRun] = []
        retained.reserveCapacity(runCount)
        for _ in 0..<runCount {
            let run = PageRun(start: load(offset, as: UInt64.self), count: load(offset + 8, as: UInt64.self))
            guard run.count > 0 else { throw damaged() }
            retained.append(FreedRun(run: run, createdBy: load(offset + 16, as: UInt64.self), freedBy: transaction))
            offset += runSize
        }
        return ChangeRecord(commitTime: load(0, as: Int64.self), baseTransaction: load(8, as: UInt64.self),
                            baseCatalog: TreeRoot(page: load(16, as: UInt64.self), transaction: load(24, as: UInt64.self),
                                                  count: load(32, as: UInt64.self)),
                            changes: log, retained: retained, commitID: load(48, as: UInt64.self), recordedThrough: load(56, as: UInt64.self))
    }
}
