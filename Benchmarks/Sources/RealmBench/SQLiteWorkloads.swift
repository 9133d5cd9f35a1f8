import BenchModel
import Foundation
import GRDB
import Synchronization

/// The SQLite side: every workload through GRDB's `DatabasePool` (WAL), with prepared, cached
/// statements, as a careful application would use it.
///
/// Durability is part of each comparison and is read back from the connection, not assumed:
/// W7 and W8 run `synchronous=FULL` (a sync per commit, as our durable commits); every other
/// workload runs GRDB's default `synchronous=NORMAL` (WAL commits not synced).
struct SQLiteSide: BenchmarkSide {
    func run(_ context: WorkloadContext) async throws -> WorkloadOutcome {
        let workload = SQLiteWorkload(context: context)
        let measured: Measured = switch context.spec.id {
        case .w1a, .w1b: try workload.bulkInsert()
        case .w2: try workload.primaryKeyLookups()
        case .w3: try workload.filteredCount()
        case .w4, .w4b: try workload.indexedLookups()
        case .w5: try workload.fullIteration()
        case .w6: try workload.sortedPrefix()
        case .w7: try await workload.sequentialDurableCommits()
        case .w7s: try await workload.commitsWhileASnapshotIsHeld()
        case .w8: try await workload.concurrentDurableCommits()
        case .w8mp: try workload.crossProcessCommits()
        case .w9: try await workload.observationLatency()
        case .w10: try workload.openAndReadFirst()
        case .w11: try workload.fileSize()
        case .w12: try workload.updateAll()
        case .w13: try workload.mediumValues()
        case .w15: try await workload.readersDuringDurableWrites()
        case .w16: try workload.crossProcessLatency()
        }
        return .measured(measured)
    }

    /// W16's `stamp` table: one row, whose `seq` and `sentAt` every commit of A sets.
    static let stampSchema = "CREATE TABLE stamp (id INTEGER PRIMARY KEY, seq INTEGER NOT NULL, sentAt INTEGER NOT NULL)"

    /// W16's observing process (see `CrossProcessLatency`): SQLite has no cross-process change
    /// notification, so a read-only connection polls `PRAGMA data_version` (which changes when
    /// another connection commits) every millisecond and reads the row when it changed.
    static func followCommits(_ context: WorkloadContext, ready: () -> Void) throws -> CrossProcessLatency.FollowerReport {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: context.directory.appendingPathComponent("bench.sqlite").path,
                                      configuration: configuration)
        func read(_ db: Database) throws -> (seq: Int, sentAt: Int) {
            guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT seq, sentAt FROM stamp WHERE id = 1")) else {
                throw WorkloadError("no stamp row")
            }
            return (row[0], row[1])
        }
        var report = CrossProcessLatency.FollowerReport()
        try queue.inDatabase { db in
            let dataVersion = try db.cachedStatement(sql: "PRAGMA data_version")
            var version = try Int.fetchOne(dataVersion)
            guard try read(db).seq == 0 else { throw WorkloadError("the row is not at seq 0") }
            ready()
            while report.seqs.last != context.size.operations {
                // 1 ms after the previous poll ended, not on a fixed 1 ms grid: a grid would be
                // phase-locked to A's 5 ms one and give every commit the same wait, 0–1 ms
                // depending on the run; this period drifts, so the wait is spread over 0–1 ms.
                CrossProcessLatency.sleep(until: CrossProcessLatency.now() + CrossProcessLatency.sqlitePollNanoseconds)
                let current = try Int.fetchOne(dataVersion)
                guard current != version else { continue }
                version = current
                // Received once read, as our element arrives holding the object.
                let (seq, sentAt) = try read(db)
                report.record(seq: seq, stamp: sentAt, at: CrossProcessLatency.now())
            }
        }
        return report
    }

    /// "journal_mode=wal, synchronous=NORMAL", read from the writer connection.
    static func durability(of pool: DatabasePool) throws -> String {
        try pool.writeWithoutTransaction { db in
            let journal = try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?"
            let level = try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1
            let names = [0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"]
            return "journal_mode=\(journal), synchronous=\(names[level] ?? String(level))"
        }
    }

    /// W8mp's database of repetition `repetition`.
    static func crossProcessPath(_ context: WorkloadContext, repetition: Int) -> String {
        context.directory.appendingPathComponent("w8mp-\(repetition).sqlite").path
    }

    /// A W8mp worker's pool, set up as GRDB's guide "Sharing a Database" has a writing process
    /// do it: a `DatabasePool` (WAL), a busy timeout (a write that finds another process writing
    /// waits — SQLite's busy handler, which sleeps 1, 2, 5, 10 … 100 ms between retries — instead
    /// of failing with SQLITE_BUSY; GRDB begins every write transaction IMMEDIATE, so a writer
    /// waits there, never half-way), and its writer connection at `synchronous=FULL`, as durable
    /// as our commits. A pool rather than a `DatabaseQueue`: writes go through one serialized writer
    /// connection in both, so the write path is the same; the pool is what the guide recommends.
    static func crossProcessPool(_ context: WorkloadContext, repetition: Int) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(MultiProcessCommits.workerTimeoutSeconds)
        let pool = try DatabasePool(path: crossProcessPath(context, repetition: repetition), configuration: configuration)
        // After opening: the pool sets its writer to NORMAL (its WAL default) after `prepareDatabase`.
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        return pool
    }

    /// A W8mp worker's committer: the process's tasks share its pool (GRDB serializes their writes
    /// on the writer connection; other processes are kept out by SQLite's write lock), one row per
    /// transaction.
    static func crossProcessCommitter(_ pool: DatabasePool) -> MultiProcessCommits.OpenCommitter {
        { _ in
            { person in
                try await pool.write { db in
                    try SQLiteSchema.insert(person, with: db.cachedStatement(sql: SQLiteSchema.insert))
                }
            }
        }
    }
}

/// One SQLite workload run; its methods are the workloads, named by what they do.
private struct SQLiteWorkload {
    let context: WorkloadContext
    var size: WorkloadSize { context.size }

    // MARK: Setup

    /// A new database file in the run's directory; `name` distinguishes repetitions.
    func databasePath(_ name: String = "bench") -> String {
        context.directory.appendingPathComponent("\(name).sqlite").path
    }

    /// Opens a pool (GRDB defaults: WAL, synchronous=NORMAL) and, when `durable`, switches the
    /// writer connection, the only one that commits, to synchronous=FULL.
    func openPool(at path: String, durable: Bool = false) throws -> DatabasePool {
        let pool = try DatabasePool(path: path)
        if durable {
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        }
        return pool
    }

    /// A pool on a new file holding the schema and rows `1...rows`. `visit` sees every row
    /// inserted, for workloads that precompute their expected answer. `durable` as in
    /// ``openPool(at:durable:)``.
    func makeFilledPool(rows: Int, durable: Bool = false,
                        visit: (Person) -> Void = { _ in }) throws -> (DatabasePool, String) {
        let path = databasePath()
        let pool = try openPool(at: path, durable: durable)
        try pool.write { db in
            try SQLiteSchema.create(in: db)
            let statement = try db.cachedStatement(sql: SQLiteSchema.insert)
            for id in stride(from: 1, through: rows, by: 1) {
                let person = Person.make(id: id)
                visit(person)
                try SQLiteSchema.insert(person, with: statement)
            }
        }
        return (pool, path)
    }

    /// "journal_mode=wal, synchronous=NORMAL", read from the writer connection.
    func durability(of pool: DatabasePool) throws -> String {
        try SQLiteSide.durability(of: pool)
    }

    func rowCount(_ pool: DatabasePool) throws -> Int {
        try pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM person") ?? 0 }
    }

    // MARK: Workloads

    /// W1: `rows` pre-generated rows inserted in one transaction into an empty table that already
    /// has the email index. Each repetition starts from a new file.
    func bulkInsert() throws -> Measured {
        let people = Person.dataSet(count: size.rows)
        var samples: [Double] = []
        var durability = ""
        for repetition in 0..<context.repetitions {
            let path = databasePath("rep\(repetition)")
            let pool = try openPool(at: path)
            try pool.write { try SQLiteSchema.create(in: $0) }
            samples.append(try Stopwatch.time {
                try pool.write { db in
                    let statement = try db.cachedStatement(sql: SQLiteSchema.insert)
                    for person in people {
                        try SQLiteSchema.insert(person, with: statement)
                    }
                }
            })
            let count = try rowCount(pool)
            guard count == size.rows else { throw WorkloadError("inserted \(count) rows, expected \(size.rows)") }
            durability = try self.durability(of: pool)
            try pool.close()
            try removeDatabase(at: path)
        }
        let rate = Double(size.rows) / Statistics.median(samples)
        return Measured(samples: samples, extras: ["rowsPerSecond": .init(rate, .perSecond)],
                        durability: durability, checksum: size.rows)
    }

    /// W2: `operations` lookups of random ids in one read transaction, reading name and age.
    func primaryKeyLookups() throws -> Measured {
        let (pool, _) = try makeFilledPool(rows: size.rows)
        let ids = LookupKeys.randomIDs(count: size.operations, rows: size.rows)
        var checksum = 0
        let samples = try (0..<context.repetitions).map { _ in
            try Stopwatch.time {
                checksum = try pool.read { db in
                    let statement = try db.cachedStatement(sql: "SELECT name, age FROM person WHERE id = ?")
                    var ageSum = 0
                    var nameBytes = 0
                    for id in ids {
                        let (bytes, age) = try Self.nameBytesAndAge(statement, id: id)
                        nameBytes += bytes
                        ageSum += age
                    }
                    return ageSum &* 1_000_003 &+ nameBytes
                }
            }
        }
        return Measured(samples: samples, durability: try durability(of: pool), checksum: checksum)
    }

    /// W3: one `COUNT(*)` with an unindexed two-column filter over the whole table.
    func filteredCount() throws -> Measured {
        var expected = 0
        let (pool, _) = try makeFilledPool(rows: size.rows) { person in
            if person.age < 30 && person.score > 0.5 { expected += 1 }
        }
        var count = 0
        let samples = try (0..<context.repetitions).map { _ in
            try Stopwatch.time {
                count = try pool.read { db in
                    let statement = try db.cachedStatement(
                        sql: "SELECT COUNT(*) FROM person WHERE age < 30 AND score > 0.5")
                    return try Int.fetchOne(statement) ?? -1
                }
            }
        }
        guard count == expected else { throw WorkloadError("counted \(count) rows, expected \(expected)") }
        return Measured(samples: samples, durability: try durability(of: pool), checksum: count)
    }

    /// W4 and W4b (one statement for both: W4b differs from W4 only in how our side spells the
    /// query): `operations` equality lookups on the unique email index, reading id and age.
    func indexedLookups() throws -> Measured {
        let (pool, _) = try makeFilledPool(rows: size.rows)
        let ids = LookupKeys.randomIDs(count: size.operations, rows: size.rows)
        let expectedRows = ids.map { Person.make(id: $0) }
        let emails = expectedRows.map(\.email)
        let expected = expectedRows.reduce(0) { $0 &* 1_000_003 &+ $1.id &* 100 &+ $1.age }
        var checksum = 0
        let samples = try (0..<context.repetitions).map { _ in
            try Stopwatch.time {
                checksum = try pool.read { db in
                    let statement = try db.cachedStatement(sql: "SELECT id, age FROM person WHERE email = ?")
                    var checksum = 0
                    for email in emails {
                        guard let row = try Row.fetchOne(statement, arguments: [email]) else {
                            throw WorkloadError("no row with email \(email)")
                        }
                        let id: Int = row[0]
                        let age: Int = row[1]
                        checksum = checksum &* 1_000_003 &+ id &* 100 &+ age
                    }
                    return checksum
                }
            }
        }
        guard checksum == expected else { throw WorkloadError("checksum \(checksum), expected \(expected)") }
        return Measured(samples: samples, durability: try durability(of: pool), checksum: checksum)
    }

    /// W5: a cursor over every row, reading age and name (summed so nothing is skipped).
    func fullIteration() throws -> Measured {
        let (pool, _) = try makeFilledPool(rows: size.rows)
        var checksum = 0
        let samples = try (0..<context.repetitions).map { _ in
            try Stopwatch.time {
                checksum = try pool.read { db in
                    let statement = try db.cachedStatement(sql: "SELECT age, name FROM person")
                    let rows = try Row.fetchCursor(statement)
                    var ageSum = 0
                    var nameBytes = 0
                    var count = 0
                    while let row = try rows.next() {
                        let age: Int = row[0]
                        let name: String = row[1]
                        ageSum += age
                        nameBytes += name.utf8.count
                        count += 1
                    }
                    guard count == size.rows else { throw WorkloadError("iterated \(count) rows") }
                    return ageSum &* 1_000_003 &+ nameBytes
                }
            }
        }
        return Measured(samples: samples, durability: try durability(of: pool), checksum: checksum)
    }

    /// W6: the first `operations` rows ordered by age, then name (no index on either), reading
    /// id, name and age. The checksum (ages and name lengths) does not depend on how ties break.
    func sortedPrefix() throws -> Measured {
        let (pool, _) = try makeFilledPool(rows: size.rows)
        var checksum = 0
        let samples = try (0..<context.repetitions).map { _ in
            try Stopwatch.time {
                checksum = try pool.read { db in
                    let statement = try db.cachedStatement(
                        sql: "SELECT id, name, age FROM person ORDER BY age, name LIMIT ?")
                    let rows = try Row.fetchAll(statement, arguments: [size.operations])
                    guard rows.count == min(size.operations, size.rows) else {
                        throw WorkloadError("read \(rows.count) sorted rows")
                    }
                    var checksum = 0
                    for row in rows {
                        let name: String = row[1]
                        let age: Int = row[2]
                        checksum = checksum &* 31 &+ age &* 100 &+ name.utf8.count
                    }
                    return checksum
                }
            }
        }
        return Measured(samples: samples, durability: try durability(of: pool), checksum: checksum)
    }

    /// W7: `operations` transactions, one after the other, each inserting one row and committed
    /// with synchronous=FULL (one sync per commit in WAL mode).
    func sequentialDurableCommits() async throws -> Measured {
        let path = databasePath()
        let pool = try openPool(at: path, durable: true)
        try await pool.write { try SQLiteSchema.create(in: $0) }
        let count = size.operations
        var samples: [Double] = []
        for repetition in 0..<context.repetitions {
            let people = (1...count).map { Person.make(id: repetition * count + $0) }
            samples.append(try await Stopwatch.time {
                for person in people {
                    try await pool.write { db in
                        try SQLiteSchema.insert(person, with: db.cachedStatement(sql: SQLiteSchema.insert))
                    }
                }
            })
        }
        let rows = try rowCount(pool)
        guard rows == count * context.repetitions else { throw WorkloadError("\(rows) rows after the commits") }
        let rate = Double(count) / Statistics.median(samples)
        return Measured(samples: samples, extras: ["commitsPerSecond": .init(rate, .perSecond)],
                        durability: try durability(of: pool), checksum: count)
    }

    /// W7s: W7's commits (synchronous=FULL) while a `DatabaseSnapshot` (an open read
    /// transaction, which keeps checkpoints from passing it) of the first version is held, then
    /// the same without it. Sizes include the WAL.
    func commitsWhileASnapshotIsHeld() async throws -> Measured {
        func run(_ name: String, holding: Bool) async throws -> (seconds: Double, median: Double, bytes: Double) {
            let path = databasePath(name)
            let pool = try openPool(at: path, durable: true)
            try await pool.write { db in
                try SQLiteSchema.create(in: db)
                try SQLiteSchema.insert(Person.make(id: 1), with: db.cachedStatement(sql: SQLiteSchema.insert))
            }
            let snapshot = holding ? try pool.makeSnapshot() : nil
            var latencies: [Double] = []
            let people = (2...size.operations + 1).map { Person.make(id: $0) }
            let seconds = try await Stopwatch.time {
                for person in people {
                    let start = ContinuousClock.now
                    try await pool.write { db in
                        try SQLiteSchema.insert(person, with: db.cachedStatement(sql: SQLiteSchema.insert))
                    }
                    latencies.append(Stopwatch.seconds(ContinuousClock.now - start))
                }
            }
            if let snapshot {
                let seen = try await snapshot.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM person") ?? 0 }
                guard seen == 1 else { throw WorkloadError("the snapshot sees \(seen) rows") }
            }
            let bytes = try fileBytes(path) + (FileManager.default.fileExists(atPath: path + "-wal") ? fileBytes(path + "-wal") : 0)
            return (seconds, Statistics.median(latencies), Double(bytes))
        }
        let held = try await run("held", holding: true)
        let free = try await run("free", holding: false)
        return Measured(samples: [held.seconds],
                        extras: ["medianCommitHeld": .init(held.median, .seconds), "medianCommitFree": .init(free.median, .seconds),
                                 "fileBytesHeld": .init(held.bytes, .bytes), "fileBytesFree": .init(free.bytes, .bytes),
                                 "secondsFree": .init(free.seconds, .seconds)],
                        durability: "journal_mode=wal, synchronous=FULL", checksum: size.operations)
    }

    /// W8: `tasks` concurrent tasks, each committing `operations` one-row transactions through
    /// the pool's writer, synchronous=FULL. SQLite serialises them: one sync per commit.
    func concurrentDurableCommits() async throws -> Measured {
        let path = databasePath()
        let pool = try openPool(at: path, durable: true)
        try await pool.write { try SQLiteSchema.create(in: $0) }
        let perTask = size.operations
        let total = perTask * size.tasks
        var samples: [Double] = []
        for repetition in 0..<context.repetitions {
            let batches = (0..<size.tasks).map { task in
                (1...perTask).map { Person.make(id: repetition * total + task * perTask + $0) }
            }
            samples.append(try await Stopwatch.time {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for batch in batches {
                        group.addTask {
                            for person in batch {
                                try await pool.write { db in
                                    try SQLiteSchema.insert(person, with: db.cachedStatement(sql: SQLiteSchema.insert))
                                }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            })
        }
        let rows = try rowCount(pool)
        guard rows == total * context.repetitions else { throw WorkloadError("\(rows) rows after the commits") }
        let rate = Double(total) / Statistics.median(samples)
        return Measured(samples: samples, extras: ["commitsPerSecond": .init(rate, .perSecond)],
                        durability: try durability(of: pool), checksum: total)
    }

    /// W8mp's coordinator (see `MultiProcessCommits`): each repetition's database is made here
    /// (WAL, the schema) and closed before the workers open it; afterwards its rows are counted.
    func crossProcessCommits() throws -> Measured {
        try MultiProcessCommits.measure(context, side: .sqlite, prepare: { repetition in
            let pool = try DatabasePool(path: SQLiteSide.crossProcessPath(context, repetition: repetition))
            try pool.write { try SQLiteSchema.create(in: $0) }
            try pool.close()
        }, count: { repetition in
            let pool = try DatabasePool(path: SQLiteSide.crossProcessPath(context, repetition: repetition))
            defer { try? pool.close() }
            return try rowCount(pool)
        })
    }

    /// W9: `ValueObservation.tracking { Person.fetchAll }` (all rows, by id) observed through
    /// `values(in:)`; `operations` times, one row's score is updated and the latency from the
    /// end of the commit to the arrival of the first element holding the new score is recorded.
    /// Samples are those latencies.
    ///
    /// The commit instant is taken by ``CommitClock``, a transaction observer registered before
    /// the observation's own: GRDB notifies observers in registration order right after COMMIT,
    /// and `tracking` (a region that may change) re-fetches on the writer connection inside that
    /// notification, so a clock read after `write` returns would miss the fetch.
    func observationLatency() async throws -> Measured {
        let (pool, _) = try makeFilledPool(rows: size.rows)
        let commitClock = CommitClock()
        pool.add(transactionObserver: commitClock, extent: .observerLifetime)
        let observation = ValueObservation.tracking { db in
            try Person.order(Column("id")).fetchAll(db)
        }
        var elements = observation.values(in: pool).makeAsyncIterator()
        guard let initial = try await elements.next(), initial.count == size.rows else {
            throw WorkloadError("the initial observed value is missing or incomplete")
        }
        let targets = LookupKeys.randomIDs(count: size.operations, rows: size.rows)
        var latencies: [Double] = []
        for (index, id) in targets.enumerated() {
            // Outside 0..<1, so it is never a value the row had before.
            let score = 1 + Double(index)
            try await pool.write { db in
                try db.execute(sql: "UPDATE person SET score = ? WHERE id = ?", arguments: [score, id])
            }
            guard let committed = commitClock.lastCommit else { throw WorkloadError("no commit observed") }
            while true {
                guard let people = try await elements.next() else {
                    throw WorkloadError("the observation ended")
                }
                if people[id - 1].score == score { break }
            }
            latencies.append(Stopwatch.seconds(ContinuousClock.now - committed))
        }
        return Measured(
            samples: latencies,
            extras: [
                "p50": .init(Statistics.percentile(50, of: latencies), .seconds),
                "p99": .init(Statistics.percentile(99, of: latencies), .seconds),
            ],
            durability: try durability(of: pool), checksum: size.operations)
    }

    /// W16: A's side (see `CrossProcessLatency`): a pool (WAL) whose writer commits with
    /// synchronous=FULL, as our durable commits, updating the one row of `stamp`.
    func crossProcessLatency() throws -> Measured {
        let pool = try openPool(at: databasePath(), durable: true)
        try pool.write { db in
            try db.execute(sql: SQLiteSide.stampSchema)
            try db.execute(sql: "INSERT INTO stamp (id, seq, sentAt) VALUES (1, 0, 0)")
        }
        return try CrossProcessLatency.measure(context, side: .sqlite, durability: try durability(of: pool)) { seq, sentAt in
            try pool.write { db in
                try db.cachedStatement(sql: "UPDATE stamp SET seq = ?, sentAt = ? WHERE id = 1").execute(arguments: [seq, sentAt])
            }
            return nil
        }
    }

    /// W15: readers during writes, for `seconds` each repetition, on a pool in WAL mode whose
    /// writer commits with synchronous=FULL. `tasks` concurrent reader tasks look up random ids
    /// (reading name and age) with the cached statement, each batch of `operations` lookups in a
    /// read transaction of its own (`pool.read`: a new snapshot per batch, as our readers'
    /// `refresh()`), while one task commits one-row `UPDATE … SET score` transactions back to
    /// back through `pool.write`. Same ids, scores, sample and extras as our side.
    func readersDuringDurableWrites() async throws -> Measured {
        let (pool, _) = try makeFilledPool(rows: size.rows, durable: true)
        let batch = size.operations
        let readerIDs = (0..<size.tasks).map {
            LookupKeys.randomIDs(count: W15.idsPerRole, rows: size.rows, seed: W15.readerSeed($0))
        }
        let writerIDs = LookupKeys.randomIDs(count: W15.idsPerRole, rows: size.rows, seed: W15.writerSeed)
        let runTime = Duration.seconds(size.seconds ?? 1)
        // Positions in the id lists, kept across repetitions so they look up different rows.
        var readerNext = Array(repeating: 0, count: size.tasks)
        var writerNext = 0
        var samples: [Double] = []
        var lookupRates: [Double] = []
        var commitRates: [Double] = []
        for repetition in 0..<context.repetitions {
            let deadline = ContinuousClock.now + runTime
            let writerStart = writerNext
            async let written = Self.writeUntil(deadline, pool: pool, ids: writerIDs, from: writerStart, repetition: repetition)
            let tallies = try await withThrowingTaskGroup(of: (Int, W15.ReaderTally, Int).self) { group in
                for (reader, ids) in readerIDs.enumerated() {
                    let from = readerNext[reader]
                    group.addTask {
                        let (tally, next) = try await Self.readUntil(deadline, pool: pool, ids: ids, from: from, batch: batch)
                        return (reader, tally, next)
                    }
                }
                var tallies: [(Int, W15.ReaderTally, Int)] = []
                for try await tally in group { tallies.append(tally) }
                return tallies
            }
            for (reader, _, next) in tallies { readerNext[reader] = next }
            let writer = try await written
            writerNext = (writerStart + writer.commits) % writerIDs.count
            let lookupsPerSecond = tallies.reduce(0) { $0 + Double($1.1.lookups) / $1.1.seconds }
            samples.append(1_000 / lookupsPerSecond)
            lookupRates.append(lookupsPerSecond)
            commitRates.append(Double(writer.commits) / writer.seconds)
            if let last = writer.last {
                let seen = try await pool.read { db in
                    try Double.fetchOne(db, sql: "SELECT score FROM person WHERE id = ?", arguments: [last.id])
                }
                guard seen == last.score else {
                    throw WorkloadError("a new read sees score \(String(describing: seen)) of \(last.id), expected \(last.score)")
                }
            }
        }
        return Measured(samples: samples,
                        extras: ["readerLookupsPerSecond": .init(Statistics.median(lookupRates), .perSecond),
                                 "writerCommitsPerSecond": .init(Statistics.median(commitRates), .perSecond)],
                        durability: try durability(of: pool), checksum: nil)
    }

    /// One primary-key lookup of W2 and W15 with `SELECT name, age … WHERE id = ?`: the name's
    /// length in UTF-8 bytes (decoding the name is part of the work) and the age.
    private static func nameBytesAndAge(_ statement: Statement, id: Int) throws -> (nameBytes: Int, age: Int) {
        guard let row = try Row.fetchOne(statement, arguments: [id]) else {
            throw WorkloadError("no row with id \(id)")
        }
        let name: String = row[0]
        let age: Int = row[1]
        return (name.utf8.count, age)
    }

    /// One W15 reader: batches of `batch` lookups of `ids` (cycling, from index `from`), each
    /// batch one `pool.read` transaction, until `deadline`. Returns its tally and where it
    /// stopped in `ids`.
    private static func readUntil(_ deadline: ContinuousClock.Instant, pool: DatabasePool, ids: [Int], from: Int,
                                  batch: Int) async throws -> (W15.ReaderTally, Int) {
        let start = ContinuousClock.now
        var tally = W15.ReaderTally()
        var next = from
        while ContinuousClock.now < deadline {
            let first = next
            let (nameBytes, ageSum) = try await pool.read { db in
                let statement = try db.cachedStatement(sql: "SELECT name, age FROM person WHERE id = ?")
                var nameBytes = 0
                var ageSum = 0
                var index = first
                for _ in 0..<batch {
                    let (bytes, age) = try Self.nameBytesAndAge(statement, id: ids[index])
                    index = index + 1 == ids.count ? 0 : index + 1
                    nameBytes += bytes
                    ageSum += age
                }
                return (nameBytes, ageSum)
            }
            guard nameBytes == batch * W15.nameBytes, ageSum < batch * 100 else {
                throw WorkloadError("reader: read \(nameBytes) name bytes, ages summing to \(ageSum) in \(batch) lookups")
            }
            next = (first + batch) % ids.count
            tally.lookups += batch
        }
        tally.seconds = Stopwatch.seconds(ContinuousClock.now - start)
        return (tally, next)
    }

    /// The W15 writer: one-row score updates of `ids` (cycling, from index `from`), each its
    /// own durable `pool.write`, one after the other until `deadline`.
    private static func writeUntil(_ deadline: ContinuousClock.Instant, pool: DatabasePool, ids: [Int], from: Int,
                                   repetition: Int) async throws -> W15.WriterTally {
        let start = ContinuousClock.now
        var tally = W15.WriterTally()
        var next = from
        while ContinuousClock.now < deadline {
            let id = ids[next]
            next = next + 1 == ids.count ? 0 : next + 1
            let score = W15.score(repetition: repetition, commit: tally.commits)
            try await pool.write { db in
                try db.cachedStatement(sql: "UPDATE person SET score = ? WHERE id = ?").execute(arguments: [score, id])
                guard db.changesCount == 1 else { throw WorkloadError("writer: no row with id \(id)") }
            }
            tally.commits += 1
            tally.last = (id, score)
        }
        tally.seconds = Stopwatch.seconds(ContinuousClock.now - start)
        return tally
    }

    /// W10: open a pool on an existing file (built and closed in setup) and read the first row's
    /// values. Timed from before the open to having the decoded row; closing is not timed.
    func openAndReadFirst() throws -> Measured {
        let (setupPool, path) = try makeFilledPool(rows: size.rows)
        try setupPool.close()
        let expected = Person.make(id: 1)
        var durability = ""
        var samples: [Double] = []
        for _ in 0..<context.repetitions {
            var opened: DatabasePool?
            var first: Person?
            samples.append(try Stopwatch.time {
                let pool = try DatabasePool(path: path)
                first = try pool.read { try Person.fetchOne($0, sql: "SELECT * FROM person ORDER BY id LIMIT 1") }
                opened = pool
            })
            guard first == expected else { throw WorkloadError("first row \(String(describing: first))") }
            if let opened {
                durability = try self.durability(of: opened)
                try opened.close()
            }
        }
        return Measured(samples: samples, durability: durability, checksum: expected.age)
    }

    /// W11: the bytes on disk (database + WAL) after inserting `rows` rows as W1 does and a
    /// `PRAGMA wal_checkpoint(TRUNCATE)`.
    func fileSize() throws -> Measured {
        let (pool, path) = try makeFilledPool(rows: size.rows)
        try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        let main = try fileBytes(path)
        let wal = (try? fileBytes(path + "-wal")) ?? 0
        return Measured(
            samples: [Double(main + wal)],
            extras: ["databaseFile": .init(Double(main), .bytes), "walFile": .init(Double(wal), .bytes)],
            durability: try durability(of: pool), checksum: try rowCount(pool))
    }

    /// W12: in one transaction, one UPDATE per row setting a new score (an application changing
    /// one property of every object, not a single set-based UPDATE).
    func updateAll() throws -> Measured {
        let (pool, _) = try makeFilledPool(rows: size.rows)
        var updated = 0
        let samples = try (0..<context.repetitions).map { repetition in
            try Stopwatch.time {
                updated = try pool.write { db in
                    let statement = try db.cachedStatement(sql: "UPDATE person SET score = ? WHERE id = ?")
                    let before = db.totalChangesCount
                    for id in stride(from: 1, through: size.rows, by: 1) {
                        try statement.execute(arguments: [Double(repetition) + Double(id) * 1e-7, id])
                    }
                    return db.totalChangesCount - before
                }
            }
        }
        guard updated == size.rows else { throw WorkloadError("updated \(updated) rows") }
        return Measured(samples: samples, durability: try durability(of: pool), checksum: updated)
    }

    /// W13: medium values. Each repetition, on a new file with the `note` table: the
    /// pre-generated notes `1...rows` inserted in one transaction with the cached insert (the
    /// sample); then the bytes on disk (database + WAL) after a `PRAGMA wal_checkpoint(TRUNCATE)`;
    /// then a cursor over `SELECT body FROM note`, summing the UTF-8 lengths of the decoded
    /// strings (checked against the data set's sum, which is the checksum). Extras: the medians
    /// of the file size and read time.
    func mediumValues() throws -> Measured {
        let notes = Note.dataSet(count: size.rows)
        let expected = notes.reduce(0) { $0 + $1.body.utf8.count }
        var samples: [Double] = []
        var fileSizes: [Double] = []
        var readTimes: [Double] = []
        var durability = ""
        for repetition in 0..<context.repetitions {
            let path = databasePath("w13-\(repetition)")
            // synchronous=FULL: the commit syncs, as ours does (equal durability, PERFORMANCE.md).
            let pool = try openPool(at: path, durable: true)
            try pool.write { try $0.execute(sql: SQLiteSchema.createNoteTable) }
            samples.append(try Stopwatch.time {
                try pool.write { db in
                    let statement = try db.cachedStatement(sql: SQLiteSchema.insertNote)
                    for note in notes {
                        try SQLiteSchema.insert(note, with: statement)
                    }
                }
            })
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            let wal = (try? fileBytes(path + "-wal")) ?? 0
            fileSizes.append(Double(try fileBytes(path) + wal))
            var bodyBytes = 0
            var count = 0
            readTimes.append(try Stopwatch.time {
                (bodyBytes, count) = try pool.read { db in
                    let bodies = try String.fetchCursor(db.cachedStatement(sql: "SELECT body FROM note"))
                    var bodyBytes = 0
                    var count = 0
                    while let body = try bodies.next() {
                        bodyBytes += body.utf8.count
                        count += 1
                    }
                    return (bodyBytes, count)
                }
            })
            guard count == size.rows, bodyBytes == expected else {
                throw WorkloadError("read \(count) notes, \(bodyBytes) body bytes; expected \(size.rows), \(expected)")
            }
            durability = try self.durability(of: pool)
            try pool.close()
            try removeDatabase(at: path)
        }
        return Measured(samples: samples,
                        extras: ["fileBytes": .init(Statistics.median(fileSizes), .bytes),
                                 "readSeconds": .init(Statistics.median(readTimes), .seconds)],
                        durability: durability, checksum: expected)
    }

    // MARK: Files

    func fileBytes(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.intValue ?? 0
    }

    func removeDatabase(at path: String) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}

/// Records when the last transaction committed, as seen by the first transaction observer.
///
/// Invariant: registered before any `ValueObservation` starts, so its `databaseDidCommit` runs
/// before the observation's (GRDB calls observers in registration order).
private final class CommitClock: TransactionObserver, Sendable {
    private let instant = Mutex<ContinuousClock.Instant?>(nil)

    var lastCommit: ContinuousClock.Instant? { instant.withLock { $0 } }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) {
        let now = ContinuousClock.now
        instant.withLock { $0 = now }
    }
    func databaseDidRollback(_ db: Database) {}
}
