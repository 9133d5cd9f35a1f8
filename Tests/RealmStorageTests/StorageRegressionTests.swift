import Testing
@testable import RealmStorage

/// Regressions found through the object layer, pinned at the storage layer.
@Suite struct StorageRegressionTests {
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
