// Engine-level microbenchmarks of the storage layer (issue 3): the PERFORMANCE.md model written
// straight into a table tree and an index tree, without the object layer above.
//
//   swift run -c release realm-engine-bench            # 1M rows
//   swift run -c release realm-engine-bench --quick    # 20k rows (smoke test)
//   swift run -c release realm-engine-bench --inspect FILE   # what the pages of a realm file hold
//   swift run -c release realm-engine-bench --crypto   # page encryption primitives (CryptoBenchmarks.swift)
//   swift run -c release realm-engine-bench --diff     # VersionDiff vs RowChanges(log) (VersionDiffBenchmarks.swift)
//
// Each measurement is the median of several runs on one machine in one process; compare numbers
// from the same run only. Not a test: nothing here asserts a time.
import Foundation
import RealmStorage

if let flag = CommandLine.arguments.firstIndex(of: "--inspect"), flag + 1 < CommandLine.arguments.count {
    // Page accounting of an existing file (for file-size work, e.g. W11): pages by kind and the
    // bytes the trees' entries occupy.
    let database = try Database.open(path: CommandLine.arguments[flag + 1])
    let report = try database.verify()
    try database.close()
    print("pages \(report.pageCount) (free \(report.freePages)), trees \(report.trees), entries \(report.entries)")
    for (kind, pages) in report.pagesByKind.sorted(by: { $0.value > $1.value }) {
        print("  \(kind): \(pages) pages, \(String(format: "%.1f", Double(pages) * 4096 / 1_048_576)) MiB")
    }
    exit(0)
}

let quick = CommandLine.arguments.contains("--quick")
if CommandLine.arguments.contains("--crypto") {
    runCryptoBenchmarks(quick: quick)
    exit(0)
}
let rowCount = CommandLine.arguments.firstIndex(of: "--rows").map { Int(CommandLine.arguments[$0 + 1])! } ?? (quick ? 20_000 : 1_000_000)
let lookups = quick ? 10_000 : 100_000
let durableCommits = quick ? 200 : 2_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("realm-engine-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

/// SplitMix64: deterministic data, so runs are comparable.
struct Generator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// The Person model: name, email (indexed), age, score, createdAt; the id is the object key.
let layout: [ColumnSpec] = [ColumnSpec(.bytes), ColumnSpec(.bytes), ColumnSpec(.int), ColumnSpec(.double), ColumnSpec(.double)]
enum Column { static let name = 0, email = 1, age = 2, score = 3, createdAt = 4 }

func person(_ id: Int, _ generator: inout Generator) -> [ColumnValue] {
    let letters = (0..<6).map { _ in UInt8(97 + generator.next() % 26) }
    return [
        .bytes(Array("name-".utf8) + letters),
        .bytes(Array("user\(id)@example.com".utf8)),
        .int(Int64(generator.next() % 100)),
        .double(Double(generator.next() % 1_000_000) / 1_000_000),
        .double(1_700_000_000 + Double(generator.next() % 100_000_000)),
    ]
}

func measure(_ runs: Int = 5, _ body: () throws -> Void) rethrows -> Duration {
    var samples: [Duration] = []
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        samples.append(ContinuousClock.now - start)
    }
    return samples.sorted()[samples.count / 2]
}

func format(_ duration: Duration) -> String {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    if seconds >= 1 { return String(format: "%.2f s", seconds) }
    if seconds >= 1e-3 { return String(format: "%.1f ms", seconds * 1e3) }
    return String(format: "%.1f µs", seconds * 1e6)
}

func perOperation(_ duration: Duration, _ count: Int) -> String {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    return String(format: "%.0f ns/op", seconds / Double(count) * 1e9)
}

func report(_ name: String, _ value: String, _ detail: String = "") {
    let padded = name.padding(toLength: 48, withPad: " ", startingAt: 0)
    print("\(padded) \(String(repeating: " ", count: max(0, 12 - value.count)))\(value)  \(detail)")
}

// After the globals above (`layout`), which top-level code initializes in order.
if CommandLine.arguments.contains("--diff") {
    try runVersionDiffBenchmarks(quick: quick)
    exit(0)
}

print("realm-engine-bench: \(rowCount) rows\(quick ? " (quick)" : "")")

/// Folded into by every read loop and printed at the end, so the optimizer cannot drop the reads.
var checksum = 0

// 1. Bulk insert, one transaction (table + email index), durable commit.
let path = directory.appendingPathComponent("people.realm").path
var table: TreeID = 0
var index: TreeID = 0
let insertTime = try measure(1) {
    let database = try Database.open(path: path)
    let write = try database.beginWrite()
    table = try write.createTree()
    index = try write.createTree()
    var generator = Generator(state: 1)
    for id in 0..<rowCount {
        let values = person(id, &generator)
        try write.insertRow(table, key: UInt64(id), values: values, layout: layout)
        if case .bytes(let email) = values[Column.email] {
            try write.indexInsert(index, key: IndexKey.key(IndexKey.bytes(email), objectKey: UInt64(id)))
        }
    }
    try write.commit()
    try database.close()
}
report("insert \(rowCount) rows + email index, 1 txn", format(insertTime), perOperation(insertTime, rowCount))

let fileSize = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
do {
    let database = try Database.open(path: path)
    let report = try database.verify()
    let kinds = report.pagesByKind.sorted { $0.value > $1.value }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    try database.close()
    print("  pages: \(report.pageCount) (free \(report.freePages)); \(kinds)")
}
report("file size", String(format: "%.1f MiB", Double(fileSize) / 1_048_576))

// 2. Reopen and read the first object.
var database = try Database.open(path: path)
try database.close()
let openTime = try measure(9) {
    let database = try Database.open(path: path)
    let read = try database.beginRead()
    guard let (leaf, row) = try read.row(in: read.root(of: table), key: 0) else { fatalError("missing row") }
    precondition(leaf.int(row, Column.age) >= 0)
    _ = consume read
    try database.close()
}
report("open + read first object", format(openTime))

/// Steps 3–6 read one snapshot; the function scope ends the read transaction before close.
@MainActor func runReadBenchmarks(_ database: Database) throws {
    let read = try database.beginRead()
    let tableRoot = try read.root(of: table)
    let indexRoot = try read.root(of: index)

    // 3. Random primary-key lookups reading two properties.
    var generator = Generator(state: 7)
    let keys = (0..<lookups).map { _ in generator.next() % UInt64(rowCount) }
        let lookupTime = try measure {
        for key in keys {
            guard let (leaf, row) = try read.row(in: tableRoot, key: key) else { fatalError("missing row") }
            checksum &+= Int(leaf.int(row, Column.age))
            if case .inline(let name) = leaf.storedBytes(row, Column.name) { checksum &+= name.count }
        }
    }
    report("\(lookups) random key lookups (age + name)", format(lookupTime), perOperation(lookupTime, lookups))

    // 4. Column scan: count age < 30 AND score > 0.5 over all rows, reading only those columns.
    var matches = 0
    let scanTime = try measure {
        matches = 0
        try read.forEachCluster(in: tableRoot) { leaf in
            for row in 0..<leaf.count where leaf.int(row, Column.age) < 30 && leaf.double(row, Column.score) > 0.5 {
                matches += 1
            }
            return true
        }
    }
    report("scan count age < 30 AND score > 0.5", format(scanTime), "\(matches) matches, \(perOperation(scanTime, rowCount))")

    // 4b. The same count column-at-a-time, as the query engine runs it (ColumnSelection), without
    // and with prefetching the columns of the leaves ahead (headers are always prefetched).
    let tests: [ScanTest] = [.int(column: Column.age, .less, 30), .double(column: Column.score, .greater, 0.5)]
    for prefetch in [[], [Column.age, Column.score]] {
        let selectionTime = try measure {
            matches = 0
            try read.forEachCluster(in: tableRoot, prefetching: prefetch) { leaf in
                matches += leaf.countSelected(tests)
                return true
            }
        }
        report("column-at-a-time count\(prefetch.isEmpty ? "" : ", prefetching")", format(selectionTime),
               "\(matches) matches, \(perOperation(selectionTime, rowCount))")
    }

    // 4c. Only visiting the leaves: the floor under any scan.
    var leaves = 0
    let visitTime = try measure {
        leaves = 0
        try read.forEachCluster(in: tableRoot) { _ in leaves += 1; return true }
    }
    report("visit every leaf", format(visitTime), "\(leaves) leaves, \(perOperation(visitTime, leaves)) per leaf")

    // 5. Indexed equality lookups by email.
    let emails = keys.prefix(lookups / 10).map { IndexKey.bytes("user\($0)@example.com") }
    let indexTime = try measure {
        for email in emails {
            let found = try read.indexObjectKeys(indexRoot, matching: email)
            precondition(found.count == 1)
        }
    }
    report("\(emails.count) indexed email lookups", format(indexTime), perOperation(indexTime, emails.count))

    // 6. Iterate all rows reading age and name.
    let iterateTime = try measure(3) {
        var total = 0
        try read.forEachCluster(in: tableRoot) { leaf in
            for row in 0..<leaf.count {
                total &+= Int(leaf.int(row, Column.age))
                if case .inline(let name) = leaf.storedBytes(row, Column.name) { total &+= name.count }
            }
            return true
        }
        checksum &+= total
    }
    report("iterate all rows reading age + name", format(iterateTime), perOperation(iterateTime, rowCount))
}

database = try Database.open(path: path)
try runReadBenchmarks(database)
try database.close()

// 7. Durable commit latency against the disk's raw sync latency.
let syncPath = directory.appendingPathComponent("sync-probe").path
let descriptor = open(syncPath, O_RDWR | O_CREAT, 0o644)
var page = [UInt8](repeating: 1, count: 4096)
let rawSync = measure(1) {
    for index in 0..<durableCommits {
        page[0] = UInt8(truncatingIfNeeded: index)
        _ = page.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, 4096, 0) }
        _ = fdatasync(descriptor)
    }
}
close(descriptor)
report("raw pwrite+fdatasync of one 4 KiB page", perOperation(rawSync, durableCommits),
       String(format: "%.0f syncs/s", Double(durableCommits) / (Double(rawSync.components.attoseconds) / 1e18 + Double(rawSync.components.seconds))))

let commitPath = directory.appendingPathComponent("commits.realm").path
let commitDatabase = try Database.open(path: commitPath)
let setup = try commitDatabase.beginWrite()
let commitTable = try setup.createTree()
try setup.commit()
var commitGenerator = Generator(state: 3)
let pagesBefore = commitDatabase.pageCount
let commitTime = try measure(1) {
    for id in 0..<durableCommits {
        let write = try commitDatabase.beginWrite()
        try write.insertRow(commitTable, key: UInt64(id), values: person(id, &commitGenerator), layout: layout)
        try write.commit()
    }
}
let commitRate = Double(durableCommits) / (Double(commitTime.components.seconds) + Double(commitTime.components.attoseconds) / 1e18)
report("durable commit of one row", perOperation(commitTime, durableCommits),
       String(format: "%.0f commits/s, %.0f%% of raw sync rate; file %d → %d pages", commitRate,
              commitRate / (Double(durableCommits) / (Double(rawSync.components.seconds) + Double(rawSync.components.attoseconds) / 1e18)) * 100,
              pagesBefore, commitDatabase.pageCount))
try commitDatabase.close()

print("checksum \(checksum)")
