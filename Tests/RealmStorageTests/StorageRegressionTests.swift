import Testing
@testable import RealmStorage
import RealmTestSupport

/// Regressions found through the object layer, pinned at the storage layer.
@Suite struct StorageRegressionTests {
    /// Issue 14, finding 1: a file that opened fine for thousands of versions refused to open
    /// ("inner page N has keys out of order", both metas). Entry 0 of an inner page acts as minus
    /// infinity and keeps whatever key it had: when an emptied first child is removed, the next
    /// entry moves to position 0 with its key, and keys inserted below it later go to the new
    /// first child, whose split puts a smaller key at position 1. Routing is right; the
    /// integrity check (run by recovery on the newest batch) compared entry 1 with entry 0.
    @Test func aStaleFirstSeparatorIsNotDamage() throws {
        let directory = try TemporaryDirectory()
        let database = try Database.open(path: directory.path(), options: DatabaseOptions(durability: .none))
        let value = [UInt8](repeating: 9, count: 200)
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        for key in 1_000..<1_400 as Range<UInt64> { try setup.put(tree, key: key, value: value) }
        try setup.commit()
        let emptyFirstLeaves = try database.beginWrite()
        for key in 1_000..<1_100 as Range<UInt64> { try emptyFirstLeaves.remove(tree, key: key) }
        try emptyFirstLeaves.commit()
        let insertBelow = try database.beginWrite()
        for key in 0..<300 as Range<UInt64> { try insertBelow.put(tree, key: key, value: value) }
        try insertBelow.commit()
        let report = try database.verify()
        #expect(report.entries == 600)
        try database.close()
        let reopened = try Database.open(path: directory.path())  // recovery checks the newest batch
        #expect(try reopened.verify().entries == 600)
        #expect(try reopened.beginRead().value(tree, key: 5) == value)
    }

    @Test func manyColumnKindsWithOverflowSurviveReopen() throws {
        let directory = try TemporaryDirectory()
        let layout: [ColumnSpec] = [
            ColumnSpec(.bool), ColumnSpec(.int), ColumnSpec(.int), ColumnSpec(.int), ColumnSpec(.int), ColumnSpec(.int),
            ColumnSpec(.float), ColumnSpec(.double), ColumnSpec(.bytes), ColumnSpec(.bytes), ColumnSpec(.double),
            ColumnSpec(.fixed, fixedWidth: 16), ColumnSpec(.int, nullable: true), ColumnSpec(.bytes, nullable: true),
            ColumnSpec(.double, nullable: true), ColumnSpec(.bool, nullable: true), ColumnSpec(.double, nullable: true),
        ]
        let big = Array(String(repeating: "é", count: 100_000).utf8)
        let data = (0..<5000).map { UInt8($0 % 251) }
        let first: [ColumnValue] = [.bool(true), .int(.min), .int(-128), .int(32767), .int(Int64(Int32.min)), .int(.max),
                                    .float(.greatestFiniteMagnitude), .double(1.5), .bytes(big), .bytes(data), .double(1e10),
                                    .fixed(Array(repeating: 7, count: 16)), .int(.max), .bytes([]), .double(-1e10), .bool(false), .double(-.infinity)]
        let second = layout.map(\.defaultValue)
        var database = try Database.open(path: directory.path())
        let write = try database.beginWrite()
        let table = try write.createTree()
        try write.insertRow(table, key: 0, values: first, layout: layout)
        try write.insertRow(table, key: 1, values: second, layout: layout)
        try write.commit()
        try database.close()
        database = try Database.open(path: directory.path())
        _ = try database.verify()
        // The greatest key of a table whose root is a cluster leaf (object keys are allocated from it).
        #expect(try database.beginRead().lastKey(in: database.beginRead().root(of: table)) == 1)
        let read = try database.beginRead()
        let (leaf, row) = try #require(try read.row(in: read.root(of: table), key: 0))
        let values = try layout.indices.map { try read.value(leaf, row: row, column: $0, spec: layout[$0]) }
        #expect(values == first)
    }
}
