import Testing
@testable import RealmStorage

/// The change log a write transaction keeps of its table edits, and the net changes a span of
/// commits made.
@Suite struct RowChangesTests {
    @Test func writeTransactionsLogInsertsUpdatesAndRemoves() throws {
        let database = try Database.inMemory()
        let setup = try database.beginWrite()
        let tree = try setup.createTree()
        let layout = [ColumnSpec(.int), ColumnSpec(.int)]
        for key in 0..<5 as Range<UInt64> { try setup.insertRow(tree, key: key, values: [.int(Int64(key)), .int(0)], layout: layout) }
        #expect(RowChanges(setup.changeLog).trees[tree]?.inserted == [0, 1, 2, 3, 4])
        #expect(setup.changeLog.entries.count == 1)  // consecutive keys: one run
        try setup.commit()

        let write = try database.beginWrite()
        try write.updateValue(tree, key: 1, column: 1, value: .int(7), layout: layout)
        try write.updateValue(tree, key: 1, column: 0, value: .int(7), layout: layout)
        try write.insertRow(tree, key: 9, values: [.int(9), .int(9)], layout: layout)
        try write.updateValue(tree, key: 9, column: 0, value: .int(8), layout: layout)  // new: not a modification
        try write.removeRow(tree, key: 2)
        try write.updateValue(tree, key: 3, column: 1, value: .int(1), layout: layout)
        try write.removeRow(tree, key: 3)                                                // removed: not modified
        try write.removeRow(tree, key: 4)
        try write.insertRow(tree, key: 4, values: [.int(4), .int(4)], layout: layout)      // replaced: modified, every column
        let changes = try #require(RowChanges(write.changeLog).trees[tree])
        #expect(changes.inserted == [9])
        #expect(changes.removed == [2, 3])
        #expect(changes.updated == [1: [ColumnMask(column: 0), ColumnMask(column: 1)], 4: .all])
        write.abort()
    }

    @Test func logsOfConsecutiveCommitsCombine() {
        var first = RowChangeLog()
        first.record(.insert, 1, 10)
        first.record(.update, 1, 5, column: 2)
        var second = RowChangeLog()
        second.record(.update, 1, 10, column: 0)   // the object the first commit inserted
        second.record(.remove, 1, 5)
        second.record(.update, 1, 6, column: 70)  // a column past 62 shares the last bit
        second.record(.remove, 2, 1)
        second.record(.insert, 3, .max)             // keys wrap: no trap
        second.record(.insert, 3, 0)
        first.append(second)
        let changes = RowChanges(first)
        #expect(changes.trees[1]?.inserted == [10])
        #expect(changes.trees[1]?.removed == [5])
        #expect(changes.trees[1]?.updated == [6: ColumnMask(column: 63)])
        #expect(ColumnMask(column: 63).contains(100) && !ColumnMask(column: 3).contains(4))
        #expect(changes.trees[2]?.removed == [1])
        #expect(changes.trees[3]?.inserted == [.max, 0])
    }
}
