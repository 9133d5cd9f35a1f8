import Foundation
import Testing
@testable import RealmStorage
import RealmTestSupport

/// The compacted copy of a version: every tree rebuilt under its id, entries equal, the file
/// consistent (integrity check) and smaller than a source full of freed pages.
@Suite struct CompactCopyTests {
    static let layout = [ColumnSpec(.int), ColumnSpec(.bytes), ColumnSpec(.double, nullable: true)]

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aCopyHasTheSameTreesAndPassesTheIntegrityCheck(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let source = try Database.open(path: directory.path("source.realm"), options: DatabaseOptions(durability: .none))
        var random = SplitMix64(seed: seed)
        let write = try source.beginWrite()
        let values = try write.createTree()
        let table = try write.createTree()
        let index = try write.createTree()
        let dropped = try write.createTree()
        let empty = try write.createTree()
        for key in 0..<UInt64(3_000) {
            let length = Int(random.next() % 40) == 0 ? 2_000 : Int(random.next() % 200)
            _ = try write.put(values, key: key * 3, value: testValue(key: key, version: seed, length: length))
            let text = [UInt8](repeating: UInt8(key % 250), count: Int(random.next() % 600))
            try write.insertRow(table, key: key * 7, values: [.int(Int64(key)), .bytes(text), key % 3 == 0 ? .null : .double(Double(key))],
                                layout: Self.layout)
            try write.indexInsert(index, key: IndexKey.key(IndexKey.int(Int64(random.next() % 100)), objectKey: key))
        }
        _ = try write.put(dropped, key: 1, value: [1, 2, 3])
        try write.commit()
        let thin = try source.beginWrite()
        for key in 0..<UInt64(3_000) where key % 10 != 0 {
            _ = try thin.remove(values, key: key * 3)
            _ = try thin.removeRow(table, key: key * 7)
        }
        try thin.dropTree(dropped)
        try thin.commit()

        let reader = try source.beginRead()
        let copyPath = directory.path("copy.realm")
        try Database.writeCompactCopy(of: reader, tables: [table: Self.layout], to: copyPath)
        let copy = try Database.open(path: copyPath)
        let report = try copy.verify()
        #expect(report.freePages == 0)
        let copied = try copy.beginRead()
        #expect(try copied.treeIDs() == [values, table, index, empty])
        for id in try reader.treeIDs() { #expect(try copied.count(of: id) == reader.count(of: id), "tree \(id)") }
        var expected: [(UInt64, [UInt8])] = []
        try reader.forEach(in: reader.root(of: values)) { key, value in expected.append((key, Array(value))); return true }
        var actual: [(UInt64, [UInt8])] = []
        try copied.forEach(in: copied.root(of: values)) { key, value in actual.append((key, Array(value))); return true }
        #expect(actual.map(\.0) == expected.map(\.0) && actual.map(\.1) == expected.map(\.1))
        for key in stride(from: UInt64(0), to: 3_000, by: 10) {
            let (sourceLeaf, sourceRow) = try #require(try reader.row(in: reader.root(of: table), key: key * 7))
            let (copyLeaf, copyRow) = try #require(try copied.row(in: copied.root(of: table), key: key * 7))
            for column in Self.layout.indices {
                #expect(try copied.value(copyLeaf, row: copyRow, column: column, spec: Self.layout[column])
                        == reader.value(sourceLeaf, row: sourceRow, column: column, spec: Self.layout[column]))
            }
        }
        var sourceKeys: [[UInt8]] = [], copyKeys: [[UInt8]] = []
        try reader.indexScan(reader.root(of: index), from: UnsafeRawBufferPointer(start: nil, count: 0)) { sourceKeys.append(Array($0)); return true }
        try copied.indexScan(copied.root(of: index), from: UnsafeRawBufferPointer(start: nil, count: 0)) { copyKeys.append(Array($0)); return true }
        #expect(copyKeys == sourceKeys)
        #expect(copy.pageCount * 3 < source.pageCount, "copy \(copy.pageCount) pages, source \(source.pageCount)")
        #expect(throws: StorageError.self) { try Database.writeCompactCopy(of: reader, tables: [table: Self.layout], to: copyPath) }
        #expect(throws: StorageError.self) { try Database.writeCompactCopy(of: reader, tables: [:], to: directory.path("no-layout.realm")) }
        #expect(!FileManager.default.fileExists(atPath: directory.path("no-layout.realm")))
    }
}
