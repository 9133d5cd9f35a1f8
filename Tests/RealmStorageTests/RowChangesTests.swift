import Testing
@testable import RealmStorage
import RealmTestSupport

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

    /// Key enumerators over sets of keys per tree, as ``RowChangeLog/clipped(keysBefore:keysAfter:)``
    /// takes them.
    static func keys(_ sets: [TreeID: Set<UInt64>]) -> RowChangeLog.TableKeys {
        { tree, lower, upper, body in
            for key in (sets[tree] ?? []).sorted() where key >= lower && key <= upper { body(key) }
        }
    }

    /// A clipped log has the net effect of the log: random edits of a table (insert absent keys,
    /// update and remove present ones, keys near the top so runs wrap), checked key by key
    /// against the log itself; edits of a tree that is not a table (an index) go.
    @Test(arguments: 0..<50 as Range<UInt64>)
    func clippedLogsHaveTheSameNetEffect(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let space: [UInt64] = (0..<24).map { $0 < 12 ? $0 : UInt64.max - 23 + $0 }
        let before = Set(space.filter { _ in random.next() % 2 == 0 })
        var present = before
        var log = RowChangeLog()
        for _ in 0..<Int(random.next() % 60) {
            let key = space[Int(random.next() % UInt64(space.count))]
            if present.contains(key) {
                if random.next() % 3 == 0 {
                    log.record(.remove, 1, key)
                    present.remove(key)
                } else {
                    log.record(.update, 1, key, column: Int(random.next() % 3))
                }
            } else {
                log.record(.insert, 1, key)
                present.insert(key)
            }
            if random.next() % 8 == 0 { log.record(.insert, 2, key) }  // an index tree's entry
        }
        let clipped = try log.clipped(keysBefore: Self.keys([1: before]), keysAfter: Self.keys([1: present]))
        let expected = RowChanges(log).trees[1], found = RowChanges(clipped).trees[1]
        #expect(found?.inserted == expected?.inserted, "seed \(seed)")
        #expect(found?.removed == expected?.removed, "seed \(seed)")
        #expect(found?.updated == expected?.updated, "seed \(seed)")
        #expect(RowChanges(clipped).trees[2] == nil, "seed \(seed)")
    }

    /// A record read from a damaged file may claim runs of 2^62 keys: clipping costs the keys
    /// the versions hold, and keeps only those (the fuzz harness `replication` found a consumer
    /// expanding such a run key by key).
    @Test func clippingCostsTheKeysHeldNotTheKeysClaimed() throws {
        var log = RowChangeLog()
        log.appendStored(.init(tree: 1, key: 0, count: 1 << 62, column: 0, kind: .insert))
        log.appendStored(.init(tree: 1, key: 3, count: 1 << 63, column: 0, kind: .remove))
        log.appendStored(.init(tree: 1, key: .max - 1, count: 1 << 40, column: 1, kind: .update))  // wraps
        log.appendStored(.init(tree: 1, key: 9, count: 0, column: 0, kind: .insert))
        let clipped = try log.clipped(keysBefore: Self.keys([1: [4, 5]]), keysAfter: Self.keys([1: [1, 7, .max]]))
        let changes = try #require(RowChanges(clipped).trees[1])
        #expect(changes.inserted == [1, 7])
        #expect(changes.removed == [4, 5])
        #expect(changes.updated == [.max: ColumnMask(column: 1)])  // 1 and 7 were inserted: not modified
        #expect(clipped.entries.map(\.count).reduce(0, +) == 7)
    }

    /// `forEachKey` visits exactly a table's keys in the range, in order, over a tree of several
    /// levels, and stops when told.
    @Test func forEachKeyVisitsTheKeysOfARange() throws {
        let database = try Database.inMemory()
        let write = try database.beginWrite()
        let tree = try write.createTree()
        var random = SplitMix64(seed: 0x4E75)
        var keys = Set<UInt64>()
        while keys.count < 8_000 { keys.insert(random.next() % 1_000_000) }
        keys.insert(.max)
        for key in keys.sorted() { try write.insertRow(tree, key: key, values: [.int(1)], layout: [ColumnSpec(.int)]) }
        try write.commit()
        let read = try database.beginRead()
        let root = try read.root(of: tree)
        let sorted = keys.sorted()
        for _ in 0..<100 {
            let lower = random.next() % 1_100_000, upper = random.next() % 4 == 0 ? UInt64.max : lower + random.next() % 50_000
            var visited: [UInt64] = []
            try read.forEachKey(in: root, from: lower, through: upper) { visited.append($0); return true }
            let expected = sorted.filter { $0 >= lower && $0 <= upper }
            #expect(visited.elementsEqual(expected), "\(lower)...\(upper): \(visited.count) keys visited, \(expected.count) in the range")
        }
        var first: [UInt64] = []
        try read.forEachKey(in: root, from: 0, through: .max) { first.append($0); return first.count < 3 }
        #expect(first == Array(sorted.prefix(3)))
    }
}
