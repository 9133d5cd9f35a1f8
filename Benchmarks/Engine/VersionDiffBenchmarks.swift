// `VersionDiff` (issue 39, design 39 §3.10) against the log path: the row changes of one span of
// commits, found by comparing the two versions' trees, versus `RowChanges(log)` — what the
// notifier builds from its own commits' logs today.
//
//   swift run -c release realm-engine-bench --diff
//
// A table of Person rows (`person` in main.swift, keys 0, 2, 4, …) in memory, so no I/O is timed;
// each case is one commit on it, measured alone (median of several runs of each path).
import RealmStorage

func runVersionDiffBenchmarks(quick: Bool) throws {
    let rows = quick ? 20_000 : 100_000
    let database = try Database.inMemory()
    let setup = try database.beginWrite()
    let table = try setup.createTree()
    var generator = Generator(state: 5)
    for id in 0..<rows { try setup.insertRow(table, key: UInt64(id * 2), values: person(id, &generator), layout: layout) }
    try setup.commit()
    var leaves = 0
    try database.beginRead().forEachCluster(in: database.beginRead().root(of: table)) { _ in leaves += 1; return true }
    print("VersionDiff vs RowChanges(log): \(rows) rows, \(leaves) leaves")

    func span(_ name: String, _ edit: (WriteTransaction) throws -> Void) throws {
        let before = try database.beginRead()
        let write = try database.beginWrite()
        try edit(write)
        let log = write.changeLog
        try write.commit()
        let after = try database.beginRead()
        var changed = 0
        let fromLog = measure(9) {
            let changes = RowChanges(log)
            changed = changes.trees[table].map { $0.inserted.count + $0.removed.count + $0.updated.count } ?? 0
        }
        var diff: VersionDiff?
        let fromTrees = try measure(9) { diff = try VersionDiff(from: before, to: after) }
        guard let diff, let found = diff.changes.trees[table] else { fatalError("\(name): no diff") }
        let detail = "log \(format(fromLog)) (\(log.entryCount) runs, \(changed) keys); "
            + "\(diff.leavesRead) leaves + \(diff.innerPagesRead) inner pages read, \(found.inserted.count + found.updated.count) keys"
        report("  \(name)", format(fromTrees), detail)
    }

    try span("1 update") { write in
        try write.updateValue(table, key: UInt64(rows), column: Column.age, value: .int(101), layout: layout)
    }
    try span("1,000 updates spread over the table") { write in
        for index in 0..<1_000 {
            try write.updateValue(table, key: UInt64(index * (rows / 1_000) * 2), column: Column.score, value: .double(2), layout: layout)
        }
    }
    try span("1,000 updates of consecutive rows") { write in
        for index in 0..<1_000 {
            try write.updateValue(table, key: UInt64((rows / 2 + index) * 2), column: Column.score, value: .double(3), layout: layout)
        }
    }
    try span("10,000 inserts appended") { write in
        for id in rows..<rows + 10_000 { try write.insertRow(table, key: UInt64(id * 2), values: person(id, &generator), layout: layout) }
    }
    try span("10,000 inserts between existing rows") { write in
        for index in 0..<10_000 {
            let id = index * (rows / 10_000)
            try write.insertRow(table, key: UInt64(id * 2 + 1), values: person(id, &generator), layout: layout)
        }
    }
}
