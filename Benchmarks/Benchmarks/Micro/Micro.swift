import BenchModel
import Benchmark
import Foundation
import GRDB

// Micro-benchmarks of single operations, with malloc counts per operation
// (`mallocCountTotal`, from package-benchmark's malloc interposer). Engine-level benchmarks of
// RealmActors (with "mallocs per read" checks) belong here too; the SQLite ones are the yardstick.
//
// Run: swift package --package-path Benchmarks benchmark --target Micro   (see README.md)

/// The metrics of every micro-benchmark: time, and allocations per operation. (CPU time is left
/// out: Linux reports it in 10 ms ticks, far coarser than one operation.)
private let metrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal, .throughput]

/// Rows in the fixture database.
private let fixtureRows = 10_000

/// A database with `fixtureRows` people in a temporary directory, for the read benchmarks.
/// Created in setup, never timed; the directory is removed with the fixture.
final class SQLiteFixture: Sendable {
    let pool: DatabasePool
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("realm-micro-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        pool = try DatabasePool(path: directory.appendingPathComponent("micro.sqlite").path)
        try pool.write { try SQLiteSchema.create(in: $0) }
        try SQLiteSchema.fill(pool, ids: 1...fixtureRows)
    }

    deinit {
        try? pool.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: metrics,
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    realmBenchmarks(metrics: metrics)

    // One primary-key lookup through a cached statement, reading 2 columns (W2's unit of work).
    Benchmark("SQLite PK lookup, read name+age") { benchmark, fixture in
        let ids = LookupKeys.randomIDs(count: benchmark.scaledIterations.count, rows: fixtureRows)
        do {
            try fixture.pool.read { db in
                let statement = try db.cachedStatement(sql: "SELECT name, age FROM person WHERE id = ?")
                benchmark.startMeasurement()
                for id in ids {
                    let row = try Row.fetchOne(statement, arguments: [id])!
                    let name: String = row[0]
                    let age: Int = row[1]
                    blackHole(name)
                    blackHole(age)
                }
                benchmark.stopMeasurement()
            }
        } catch {
            benchmark.error("lookup failed: \(error)")
        }
    } setup: {
        try SQLiteFixture()
    }

    // One equality lookup on the unique email index (W4's unit of work).
    Benchmark("SQLite indexed email lookup, read id+age") { benchmark, fixture in
        let emails = LookupKeys.randomIDs(count: benchmark.scaledIterations.count, rows: fixtureRows)
            .map { Person.make(id: $0).email }
        do {
            try fixture.pool.read { db in
                let statement = try db.cachedStatement(sql: "SELECT id, age FROM person WHERE email = ?")
                benchmark.startMeasurement()
                for email in emails {
                    let row = try Row.fetchOne(statement, arguments: [email])!
                    let id: Int = row[0]
                    let age: Int = row[1]
                    blackHole(id)
                    blackHole(age)
                }
                benchmark.stopMeasurement()
            }
        } catch {
            benchmark.error("lookup failed: \(error)")
        }
    } setup: {
        try SQLiteFixture()
    }

    // A cursor over the whole fixture table reading age and name (W5's work, at 10k rows);
    // one iteration is one full scan, so mallocs per iteration are per scan, not per row.
    Benchmark(
        "SQLite scan 10k rows, read age+name",
        configuration: .init(metrics: metrics, scalingFactor: .one, maxDuration: .seconds(2), maxIterations: 100)
    ) { benchmark, fixture in
        do {
            try fixture.pool.read { db in
                let statement = try db.cachedStatement(sql: "SELECT age, name FROM person")
                for _ in benchmark.scaledIterations {
                    let rows = try Row.fetchCursor(statement)
                    var ages = 0
                    while let row = try rows.next() {
                        let age: Int = row[0]
                        let name: String = row[1]
                        ages += age &+ name.utf8.count
                    }
                    blackHole(ages)
                }
            }
        } catch {
            benchmark.error("iteration failed: \(error)")
        }
    } setup: {
        try SQLiteFixture()
    }
}
