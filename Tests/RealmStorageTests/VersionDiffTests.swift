import Testing
@testable import RealmStorage
import RealmTestSupport

/// `VersionDiff`: the row changes between two versions found from their trees, checked against
/// the values both versions hold (exactly) and against the commits' logs (the diff may only be
/// more precise than the log: an update that stored the value already there, a row removed and
/// inserted again).
@Suite struct VersionDiffTests {
    /// The layouts tables are drawn from: every column kind with nulls; two columns; and 66
    /// columns, so that columns past 62 share the mask's last bit.
    static let layouts: [[ColumnSpec]] = [
        TableTreeTests.baseLayout,
        [ColumnSpec(.int), ColumnSpec(.bytes)],
        (0..<66).map { $0 % 3 == 0 ? ColumnSpec(.int) : $0 % 3 == 1 ? ColumnSpec(.double, nullable: true) : ColumnSpec(.bool) },
    ]
    /// What a migration appends to a table's layout: rows written before read its default.
    static let addedColumns = [ColumnSpec(.int), ColumnSpec(.bytes, nullable: true), ColumnSpec(.fixed, fixedWidth: 4)]

    /// A table as the workload knows it.
    struct TableModel {
        var layout: [ColumnSpec]
        var rows: [UInt64: [ColumnValue]] = [:]
    }

    /// The rows of table `tree` in `version`, read with `layout` (a column a leaf lacks reads as
    /// its default): empty if the version has no such tree.
    static func rows(of tree: TreeID, in version: ReadTransaction, layout: [ColumnSpec]) throws -> [UInt64: [ColumnValue]]? {
        guard try version.treeIDs().contains(tree) else { return nil }
        var rows: [UInt64: [ColumnValue]] = [:]
        try version.forEachCluster(in: version.root(of: tree)) { leaf in
            for row in 0..<leaf.count {
                rows[leaf.key(row)] = try layout.indices.map { try version.value(leaf, row: row, column: $0, spec: layout[$0]) }
            }
            return true
        }
        return rows
    }

    /// The changes the values of two versions show: independent of `VersionDiff`'s walk (every row
    /// of both read through the ordinary accessors, compared as `ColumnValue`s).
    static func valueChanges(before: [UInt64: [ColumnValue]], _ oldLayout: [ColumnSpec],
                             after: [UInt64: [ColumnValue]], _ newLayout: [ColumnSpec]) -> RowChanges.Tree {
        var tree = RowChanges.Tree()
        tree.inserted = Set(after.keys).subtracting(before.keys)
        tree.removed = Set(before.keys).subtracting(after.keys)
        for (key, new) in after {
            guard let old = before[key] else { continue }
            var columns: ColumnMask = []
            for column in 0..<max(old.count, new.count) {
                // A column one side's table lacks reads there as the other side's default.
                let oldSpec = column < oldLayout.count ? oldLayout[column] : newLayout[column]
                let newSpec = column < newLayout.count ? newLayout[column] : oldLayout[column]
                let oldValue = column < old.count ? old[column] : oldSpec.defaultValue
                let newValue = column < new.count ? new[column] : newSpec.defaultValue
                if oldSpec.kind != newSpec.kind || oldSpec.fixedWidth != newSpec.fixedWidth || !same(oldValue, newValue) {
                    columns.insert(column)
                }
            }
            if !columns.isEmpty { tree.updated[key] = columns }
        }
        return tree
    }

    /// Whether two values are stored alike: floating-point values by their bits (-0 is not +0, a
    /// NaN is itself), as a reader of the stored value tells them apart.
    static func same(_ a: ColumnValue, _ b: ColumnValue) -> Bool {
        switch (a, b) {
        case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
        case (.float(let x), .float(let y)): x.bitPattern == y.bitPattern
        default: a == b
        }
    }

    /// A description of a difference between two change sets, or nil.
    static func mismatch(_ found: RowChanges.Tree?, _ expected: RowChanges.Tree) -> String? {
        let found = found ?? RowChanges.Tree()
        var problems: [String] = []
        if found.inserted != expected.inserted {
            problems.append("inserted: extra \(found.inserted.subtracting(expected.inserted).sorted().prefix(5)), missing \(expected.inserted.subtracting(found.inserted).sorted().prefix(5))")
        }
        if found.removed != expected.removed {
            problems.append("removed: extra \(found.removed.subtracting(expected.removed).sorted().prefix(5)), missing \(expected.removed.subtracting(found.removed).sorted().prefix(5))")
        }
        if found.updated != expected.updated {
            let keys = Set(found.updated.keys).union(expected.updated.keys).filter { found.updated[$0] != expected.updated[$0] }.sorted()
            problems.append("updated differ at \(keys.count) keys, e.g. " + keys.prefix(3).map {
                "\($0): found \(found.updated[$0].map { String($0.rawValue, radix: 2) } ?? "none"), values say \(expected.updated[$0].map { String($0.rawValue, radix: 2) } ?? "none")"
            }.joined(separator: "; "))
        }
        return problems.isEmpty ? nil : problems.joined(separator: "\n")
    }

    /// Checks `diff` (from `old` to `new`) against the values and against `log`, the span's commits'
    /// logs; `tables` are the layouts of every table tree at each side. Returns how many keys the
    /// log reported updated that the diff, rightly, does not.
    @discardableResult
    static func check(_ diff: VersionDiff, log: RowChangeLog, from old: ReadTransaction, to new: ReadTransaction,
                      oldLayouts: [TreeID: [ColumnSpec]], newLayouts: [TreeID: [ColumnSpec]],
                      _ context: String) throws -> Int {
        let logged = RowChanges(log)
        let changes = diff.changes
        let oldTrees = Set(try old.treeIDs()), newTrees = Set(try new.treeIDs())
        #expect(changes.droppedTrees == oldTrees.subtracting(newTrees), "\(context): dropped trees")
        #expect(logged.droppedTrees.isSuperset(of: changes.droppedTrees), "\(context): the log drops these too")
        var morePrecise = 0
        for tree in Set(oldLayouts.keys).union(newLayouts.keys).sorted() {
            let oldLayout = oldLayouts[tree] ?? newLayouts[tree]!, newLayout = newLayouts[tree] ?? oldLayouts[tree]!
            let before = try rows(of: tree, in: old, layout: oldLayout), after = try rows(of: tree, in: new, layout: newLayout)
            guard after != nil else {
                #expect(changes.trees[tree] == nil, "\(context): a dropped tree has no row changes")
                continue
            }
            let expected = valueChanges(before: before ?? [:], oldLayout, after: after!, newLayout)
            if let problem = mismatch(changes.trees[tree], expected) {
                Issue.record("\(context), table \(tree): the diff disagrees with the values:\n\(problem)")
            }
            if expected.isEmpty { #expect(changes.trees[tree] == nil, "\(context), table \(tree): an unchanged table is absent") }
            // Dropped and created again under its id: the log says dropped, the diff what the rows did.
            guard !logged.droppedTrees.contains(tree) else { continue }
            let fromLog = logged.trees[tree] ?? RowChanges.Tree()
            #expect(fromLog.inserted == expected.inserted, "\(context), table \(tree): the log's inserts")
            #expect(fromLog.removed == expected.removed, "\(context), table \(tree): the log's removals")
            for (key, columns) in expected.updated {
                #expect(fromLog.updated[key]?.isSuperset(of: columns) == true,
                        "\(context), table \(tree): key \(key) changed in columns the log does not name")
            }
            morePrecise += fromLog.updated.count { expected.updated[$0.key] != $0.value }
        }
        // No change to a tree that is not a table (value and index trees), and none invented.
        let tables = Set(oldLayouts.keys).union(newLayouts.keys)
        #expect(changes.trees.keys.allSatisfy { tables.contains($0) }, "\(context): changes to a tree that is not a table")
        return morePrecise
    }

    /// Random workloads of inserts, updates of random columns (some storing the value already
    /// there), removals, rows removed and inserted again, bulk inserts, columns added, tables
    /// created and dropped, value and index trees edited, over spans of several commits: the
    /// diff of each span equals the values' changes, and only refines the log's.
    @Test(arguments: 0..<24 as Range<UInt64>)
    func randomSpansMatchTheValuesAndRefineTheLogs(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let database = try Database.inMemory()
        var tables: [TreeID: TableModel] = [:]
        let setup = try database.beginWrite()
        let values = try setup.createTree()
        let index = try setup.createTree()
        try setup.put(values, key: 1, value: [1, 2, 3])
        try setup.indexInsert(index, value: IndexKey.int(1), objectKey: 1)
        try setup.commit()
        var version = try database.beginRead()
        var layouts: [TreeID: [ColumnSpec]] = [:]
        var changedKeys = 0
        for span in 0..<4 {
            var log = RowChangeLog()
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let write = try database.beginWrite()
                try Self.randomCommit(write, &tables, values: values, index: index, &random)
                log.append(write.changeLog)
                try write.commit()
            }
            let next = try database.beginRead()
            let nextLayouts = tables.mapValues(\.layout)
            let context = "seed \(seed), span \(span)"
            let diff = try #require(try VersionDiff(from: version, to: next), "\(context): over the bound")
            // Every tree either side has; a table's layout at the other side if it has none there.
            try Self.check(diff, log: log, from: version, to: next,
                                          oldLayouts: layouts, newLayouts: nextLayouts, context)
            changedKeys += diff.changes.trees.values.reduce(0) { $0 + $1.inserted.count + $1.removed.count + $1.updated.count }
            // Backwards, the same changes mirrored (what the notifier never asks, but the walk
            // allows): for tables in both versions (a table created since is dropped backwards).
            let back = try #require(try VersionDiff(from: next, to: version))
            for (tree, changes) in diff.changes.trees where !back.changes.droppedTrees.contains(tree) && !diff.changes.droppedTrees.contains(tree) {
                #expect(back.changes.trees[tree]?.inserted == changes.removed && back.changes.trees[tree]?.removed == changes.inserted
                        && back.changes.trees[tree]?.updated == changes.updated, "\(context), table \(tree): backwards")
            }
            version = next
            layouts = nextLayouts
        }
        #expect(changedKeys > 0, "seed \(seed): the workload changed nothing")
        let same = try #require(try VersionDiff(from: version, to: version))
        #expect(same.changes.isEmpty && same.leavesRead == 0, "seed \(seed): a version against itself")
    }

    /// One commit of random edits, applied to `tables` too.
    static func randomCommit(_ write: WriteTransaction, _ tables: inout [TreeID: TableModel], values: TreeID, index: TreeID,
                             _ random: inout SplitMix64) throws {
        func value(_ spec: ColumnSpec) -> ColumnValue { TableTreeTests.randomValue(spec, &random) }
        if tables.isEmpty || random.next() % 6 == 0 {  // a new table (its id may be a dropped table's)
            let tree = try write.createTree()
            let layout = layouts[Int(random.next() % UInt64(layouts.count))]
            tables[tree] = TableModel(layout: layout)
        }
        if tables.count > 1 && random.next() % 8 == 0 {  // a table dropped
            let tree = tables.keys.sorted()[Int(random.next() % UInt64(tables.count))]
            try write.dropTree(tree)
            tables[tree] = nil
        }
        if random.next() % 10 == 0 {  // a migration adds a column to a table
            let tree = tables.keys.sorted()[Int(random.next() % UInt64(tables.count))]
            let added = addedColumns[Int(random.next() % UInt64(addedColumns.count))]
            tables[tree]!.layout.append(added)
            for key in tables[tree]!.rows.keys { tables[tree]!.rows[key]!.append(added.defaultValue) }
        }
        try write.put(values, key: random.next() % 50, value: random.bytes(Int(random.next() % 30)))
        try write.indexInsert(index, value: IndexKey.int(Int64(random.next() % 1000)), objectKey: random.next() % 1000)
        let trees = tables.keys.sorted()
        for _ in 0..<Int(random.next() % 80) {
            let tree = trees[Int(random.next() % UInt64(trees.count))]
            var table = tables[tree]!
            let layout = table.layout
            let keys = table.rows.keys.sorted()
            let present = keys.isEmpty ? nil : keys[Int(random.next() % UInt64(keys.count))]
            switch random.next() % 10 {
            case 0, 1:  // a new row
                let key = random.next() % 3_000
                if table.rows[key] == nil {
                    let row = layout.map(value)
                    try write.insertRow(tree, key: key, values: row, layout: layout)
                    table.rows[key] = row
                }
            case 2, 3, 4:  // a column written, sometimes with the value it holds
                guard let key = present else { break }
                let column = Int(random.next() % UInt64(layout.count))
                let new = random.next() % 4 == 0 ? table.rows[key]![column] : value(layout[column])
                try write.updateValue(tree, key: key, column: column, value: new, layout: layout)
                table.rows[key]![column] = new
            case 5:  // removed
                guard let key = present else { break }
                #expect(try write.removeRow(tree, key: key))
                table.rows[key] = nil
            case 6:  // removed and inserted again, the same values or some new
                guard let key = present else { break }
                try write.removeRow(tree, key: key)
                var row = table.rows[key]!
                if random.next() % 2 == 0 {
                    let column = Int(random.next() % UInt64(layout.count))
                    row[column] = value(layout[column])
                }
                try write.insertRow(tree, key: key, values: row, layout: layout)
                table.rows[key] = row
            case 7:  // inserted and removed in the same span
                let key = 10_000 + random.next() % 1_000
                guard table.rows[key] == nil else { break }
                try write.insertRow(tree, key: key, values: layout.map(value), layout: layout)
                try write.removeRow(tree, key: key)
            case 8 where random.next() % 4 == 0:  // a bulk insert above every key
                let start = (keys.last ?? 0) + 1 + random.next() % 3
                for key in start..<start + 50 + random.next() % 600 {
                    let row = layout.map(value)
                    try write.insertRow(tree, key: key, values: row, layout: layout)
                    table.rows[key] = row
                }
            default:  // a run of rows updated in one column
                guard let first = present, let start = keys.firstIndex(of: first) else { break }
                let column = Int(random.next() % UInt64(layout.count))
                for key in keys[start..<min(keys.count, start + 40)] {
                    let new = value(layout[column])
                    try write.updateValue(tree, key: key, column: column, value: new, layout: layout)
                    table.rows[key]![column] = new
                }
            }
            tables[tree] = table
        }
    }

    static let smallLayout = [ColumnSpec(.int), ColumnSpec(.bytes)]

    static func smallRow(_ key: UInt64, version: UInt64 = 0) -> [ColumnValue] {
        [.int(Int64(key)), .bytes(testValue(key: key, version: version, length: 40))]
    }

    /// The leaves of a table in a version.
    static func leafCount(_ tree: TreeID, in version: ReadTransaction) throws -> Int {
        var leaves = 0
        try version.forEachCluster(in: version.root(of: tree)) { _ in leaves += 1; return true }
        return leaves
    }

    /// A few edits of a 50k-row table three levels deep read the leaves they touched (and their
    /// neighbours a split or merge involves), not the table; an untouched table is not read at all.
    @Test func aFewChangesInALargeTableReadOnlyTheirLeaves() throws {
        let database = try Database.inMemory()
        let layout = Self.smallLayout
        let setup = try database.beginWrite()
        let table = try setup.createTree(), untouched = try setup.createTree()
        for key in 0..<50_000 as Range<UInt64> { try setup.insertRow(table, key: key, values: Self.smallRow(key), layout: layout) }
        for key in 0..<5_000 as Range<UInt64> { try setup.insertRow(untouched, key: key, values: Self.smallRow(key), layout: layout) }
        try setup.commit()
        let before = try database.beginRead()
        let root = try before.page(before.root(of: table).page)
        #expect(root.pageKind == .inner && before.page(InnerNode(root).child(0)).pageKind == .inner, "three levels")
        let leaves = try Self.leafCount(table, in: before)

        let write = try database.beginWrite()
        try write.updateValue(table, key: 17, column: 0, value: .int(-1), layout: layout)
        try write.updateValue(table, key: 25_000, column: 1, value: .bytes([1, 2, 3]), layout: layout)
        try write.updateValue(table, key: 49_000, column: 1, value: Self.smallRow(49_000)[1], layout: layout)  // the value it holds
        try write.removeRow(table, key: 30_000)
        try write.removeRow(table, key: 40_000)
        try write.insertRow(table, key: 40_000, values: Self.smallRow(40_000), layout: layout)  // as it was
        for key in 50_000..<50_003 as Range<UInt64> { try write.insertRow(table, key: key, values: Self.smallRow(key), layout: layout) }
        let log = write.changeLog
        try write.commit()
        let after = try database.beginRead()

        let diff = try #require(try VersionDiff(from: before, to: after))
        let changes = try #require(diff.changes.trees[table])
        #expect(changes.inserted == [50_000, 50_001, 50_002])
        #expect(changes.removed == [30_000])
        #expect(changes.updated == [17: ColumnMask(column: 0), 25_000: ColumnMask(column: 1)])
        #expect(diff.changes.trees[untouched] == nil && diff.changes.droppedTrees.isEmpty)
        let layouts = [table: layout, untouched: layout]
        let refined = try Self.check(diff, log: log, from: before, to: after, oldLayouts: layouts, newLayouts: layouts, "large table")
        #expect(refined == 2, "49,000 (rewritten) and 40,000 (removed and inserted again) are updated only in the log")
        // Six places edited: at most a leaf and a neighbour on each side for each.
        #expect(diff.leavesRead >= 6 && diff.leavesRead <= 24, "\(diff.leavesRead) leaves read of \(leaves) in each version")
        #expect(leaves > 500 && diff.subtreesSkipped > 100, "\(diff.subtreesSkipped) subtrees skipped")
        #expect(diff.innerPagesRead <= 30, "\(diff.innerPagesRead) inner pages read")
    }

    /// A column added to a table after its rows were written reads as its default in the leaves
    /// written before: a leaf rebuilt with the column is no change to its rows, and writing the
    /// default (null, zero) is none either; writing another value is.
    @Test func columnsAddedLaterReadAsTheirDefaults() throws {
        let database = try Database.inMemory()
        let setup = try database.beginWrite()
        let table = try setup.createTree()
        let narrow = [ColumnSpec(.int)]
        for key in 0..<600 as Range<UInt64> { try setup.insertRow(table, key: key, values: [.int(Int64(key))], layout: narrow) }
        try setup.commit()
        let before = try database.beginRead()
        let wide = narrow + [ColumnSpec(.int, nullable: true), ColumnSpec(.int), ColumnSpec(.bytes, nullable: true), ColumnSpec(.double)]
        let write = try database.beginWrite()
        try write.updateValue(table, key: 5, column: 0, value: .int(-5), layout: wide)  // rebuilds its leaf with 5 columns
        try write.updateValue(table, key: 6, column: 1, value: .null, layout: wide)
        try write.updateValue(table, key: 7, column: 2, value: .int(0), layout: wide)
        try write.updateValue(table, key: 8, column: 2, value: .int(3), layout: wide)
        try write.updateValue(table, key: 9, column: 3, value: .bytes([]), layout: wide)  // not null: a change
        try write.updateValue(table, key: 10, column: 4, value: .double(0), layout: wide)
        try write.updateValue(table, key: 11, column: 4, value: .double(-0.0), layout: wide)  // another bit pattern
        try write.updateValue(table, key: 12, column: 1, value: .int(0), layout: wide)  // not null: a change
        let log = write.changeLog
        try write.commit()
        let after = try database.beginRead()
        let diff = try #require(try VersionDiff(from: before, to: after))
        #expect(diff.changes.trees[table]?.updated == [5: ColumnMask(column: 0), 8: ColumnMask(column: 2), 9: ColumnMask(column: 3),
                                                      11: ColumnMask(column: 4), 12: ColumnMask(column: 1)])
        #expect(diff.changes.trees[table]?.inserted.isEmpty == true && diff.changes.trees[table]?.removed.isEmpty == true)
        let refined = try Self.check(diff, log: log, from: before, to: after,
                                     oldLayouts: [table: narrow], newLayouts: [table: wide], "added columns")
        #expect(refined == 3, "6, 7 and 10 stored their defaults")
    }

    /// Byte strings are compared by content, inline or in overflow runs: a string rewritten as it
    /// was (in a new run, or moved from a run into the leaf) is no change; one byte changed in a
    /// long string is.
    @Test func byteStringsAreComparedByContentWhereverTheyAreStored() throws {
        let database = try Database.inMemory()
        let layout = [ColumnSpec(.bytes), ColumnSpec(.bytes)]
        let long = testValue(key: 1, version: 1, length: 6_000), medium = testValue(key: 2, version: 1, length: 3_000)
        let setup = try database.beginWrite()
        let table = try setup.createTree()
        try setup.insertRow(table, key: 1, values: [.bytes(long), .bytes([])], layout: layout)
        try setup.insertRow(table, key: 2, values: [.bytes(long), .bytes([])], layout: layout)
        try setup.insertRow(table, key: 3, values: [.bytes(medium), .bytes(medium)], layout: layout)  // one spills
        try setup.commit()
        let before = try database.beginRead()
        let (leaf, row) = try #require(try before.row(in: before.root(of: table), key: 3))
        let spilled = try #require((0..<2).first { if case .overflow = leaf.storedBytes(row, $0) { true } else { false } })

        let write = try database.beginWrite()
        var changed = long
        changed[4_321] &+= 1
        try write.updateValue(table, key: 1, column: 0, value: .bytes(changed), layout: layout)  // another run, same length
        try write.updateValue(table, key: 2, column: 0, value: .bytes(long), layout: layout)     // another run, same bytes
        try write.updateValue(table, key: 3, column: 1 - spilled, value: .bytes([7]), layout: layout)
        try write.updateValue(table, key: 3, column: spilled, value: .bytes(medium), layout: layout)  // now fits inline
        let log = write.changeLog
        try write.commit()
        let after = try database.beginRead()
        let (newLeaf, newRow) = try #require(try after.row(in: after.root(of: table), key: 3))
        if case .inline = newLeaf.storedBytes(newRow, spilled) {} else { Issue.record("the rewritten string should be inline now") }
        let diff = try #require(try VersionDiff(from: before, to: after))
        #expect(diff.changes.trees[table]?.updated == [1: ColumnMask(column: 0), 3: ColumnMask(column: 1 - spilled)])
        let refined = try Self.check(diff, log: log, from: before, to: after, oldLayouts: [table: layout], newLayouts: [table: layout], "byte strings")
        #expect(refined == 2)
    }

    /// Tables dropped and created, a value tree dropped, and a dropped table's id taken by a new
    /// table: the drops and creations the log reports, and the rows of the table under a reused id.
    @Test func droppedAndCreatedTrees() throws {
        let database = try Database.inMemory()
        let layout = Self.smallLayout
        let setup = try database.beginWrite()
        let values = try setup.createTree(), first = try setup.createTree(), second = try setup.createTree()
        for key in 0..<300 as Range<UInt64> {
            try setup.insertRow(first, key: key, values: Self.smallRow(key), layout: layout)
            try setup.insertRow(second, key: key, values: Self.smallRow(key), layout: layout)
        }
        try setup.put(values, key: 1, value: [1])
        try setup.commit()
        let before = try database.beginRead()

        let write = try database.beginWrite()
        try write.dropTree(first)
        try write.dropTree(values)
        let created = try write.createTree()
        for key in 100..<150 as Range<UInt64> { try write.insertRow(created, key: key, values: Self.smallRow(key), layout: layout) }
        var log = write.changeLog
        try write.commit()
        let middle = try database.beginRead()
        let diff = try #require(try VersionDiff(from: before, to: middle))
        #expect(diff.changes.droppedTrees == [first, values] && RowChanges(log).droppedTrees == [first, values])
        #expect(diff.changes.trees[created]?.inserted == Set(100..<150) && diff.changes.trees.count == 1)
        try Self.check(diff, log: log, from: before, to: middle, oldLayouts: [first: layout, second: layout],
                       newLayouts: [second: layout, created: layout], "dropped and created")

        // The newest table dropped, then a table created under its id: rows compared, not a drop.
        let drop = try database.beginWrite()
        try drop.dropTree(created)
        log.append(drop.changeLog)
        try drop.commit()
        let recreate = try database.beginWrite()
        #expect(try recreate.createTree() == created)
        for key in 140..<160 as Range<UInt64> { try recreate.insertRow(created, key: key, values: Self.smallRow(key, version: key % 2), layout: layout) }
        log = recreate.changeLog
        try recreate.commit()
        let after = try database.beginRead()
        let reused = try #require(try VersionDiff(from: middle, to: after))
        #expect(reused.changes.droppedTrees.isEmpty)
        #expect(reused.changes.trees[created]?.removed == Set(100..<140) && reused.changes.trees[created]?.inserted == Set(150..<160))
        #expect(reused.changes.trees[created]?.updated == Dictionary(uniqueKeysWithValues: (140..<150).filter { $0 % 2 == 1 }.map { ($0, ColumnMask(column: 1)) }))
    }

    /// An index dropped and a table created under its id: a dropped tree and the table's rows
    /// inserted, exactly as the log says.
    @Test func aTableUnderADroppedIndexsID() throws {
        let database = try Database.inMemory()
        let setup = try database.beginWrite()
        let index = try setup.createTree()
        for key in 0..<500 as Range<UInt64> { try setup.indexInsert(index, value: IndexKey.int(Int64(key)), objectKey: key) }
        try setup.commit()
        let before = try database.beginRead()
        let write = try database.beginWrite()
        try write.dropTree(index)
        try write.commit()
        let create = try database.beginWrite()
        #expect(try create.createTree() == index)
        for key in 0..<20 as Range<UInt64> { try create.insertRow(index, key: key, values: Self.smallRow(key), layout: Self.smallLayout) }
        var log = write.changeLog
        log.append(create.changeLog)
        try create.commit()
        let after = try database.beginRead()
        let diff = try #require(try VersionDiff(from: before, to: after))
        let logged = RowChanges(log)
        #expect(diff.changes.droppedTrees == [index] && logged.droppedTrees == [index])
        #expect(diff.changes.trees[index]?.inserted == Set(0..<20) && logged.trees[index]?.inserted == Set(0..<20))
        #expect(diff.changes.trees[index]?.updated.isEmpty == true && diff.changes.trees[index]?.removed.isEmpty == true)
    }

    /// Above the bound on leaves read the diff gives up (callers then compare values).
    @Test func aSpanOverTheLeafBoundIsNil() throws {
        let database = try Database.inMemory()
        let layout = Self.smallLayout
        let setup = try database.beginWrite()
        let table = try setup.createTree()
        for key in 0..<5_000 as Range<UInt64> { try setup.insertRow(table, key: key, values: Self.smallRow(key), layout: layout) }
        try setup.commit()
        let before = try database.beginRead()
        let write = try database.beginWrite()
        for key in 0..<5_000 as Range<UInt64> { try write.updateValue(table, key: key, column: 0, value: .int(-1), layout: layout) }
        try write.commit()
        let after = try database.beginRead()
        let leaves = try Self.leafCount(table, in: before) + Self.leafCount(table, in: after)
        #expect(try VersionDiff(from: before, to: after, leafLimit: leaves - 1) == nil)
        let diff = try #require(try VersionDiff(from: before, to: after, leafLimit: leaves))
        #expect(diff.leavesRead == leaves && diff.changes.trees[table]?.updated.count == 5_000)
    }

    /// Pages of two databases mean nothing to each other: refused.
    @Test func versionsOfTwoDatabasesAreRefused() throws {
        let one = try Database.inMemory(), other = try Database.inMemory()
        #expect(throws: StorageError.self) { try VersionDiff(from: one.beginRead(), to: other.beginRead()) }
    }
}
