import BenchModel
import Foundation
import RealmActors
import RealmBenchModel
import Synchronization

/// The RealmActors side ("ours"), through the public API only, as an application would use it.
///
/// Workloads that need later issues return `.notImplemented(issue:)` (shown as "—"; not a failure).
/// To add one: do the setup (rows from `Person.make(id:)` / `Person.dataSet(count:)`, so they equal
/// SQLite's) before timing, in `context.directory`; time only the measured part with
/// `Stopwatch.time`, once per `context.repetitions`; return the same `checksum` as the SQLite side;
/// say in `durability` whether commits sync; throw on a wrong answer.
struct RealmActorsSide: BenchmarkSide {
    func run(_ context: WorkloadContext) async throws -> WorkloadOutcome {
        let workload = RealmWorkload(context: context)
        switch context.spec.id {
        case .w1a, .w1b: return .measured(try workload.bulkInsert())
        case .w2: return .measured(try workload.primaryKeyLookups())
        case .w5: return .measured(try workload.fullIteration())
        case .w10: return .measured(try workload.openAndReadFirst())
        case .w11: return .measured(try workload.fileSize())
        case .w12: return .measured(try workload.updateAll())
        case .w3: return .measured(try workload.filteredCount())
        case .w4: return .measured(try workload.indexedLookups(query: .stringPredicate))
        case .w4b: return .measured(try workload.indexedLookups(query: .typeSafe))
        case .w6: return .measured(try workload.sortedPrefix())
        case .w7: return .measured(try await workload.sequentialDurableCommits())
        case .w7s: return .measured(try await workload.commitsWhileASnapshotIsHeld())
        case .w8: return .measured(try await workload.concurrentDurableCommits())
        case .w8mp: return .measured(try workload.crossProcessCommits())
        case .w9: return .measured(try await workload.observationLatency())
        case .w13: return .measured(try workload.mediumValues())
        case .w15: return .measured(try await workload.readersDuringDurableWrites())
        case .w16: return .measured(try workload.crossProcessLatency())
        }
    }

    /// W16's observing process (see `CrossProcessLatency`): opens A's file read-only, iterates
    /// `changes` on its one object and records each element's newest `seq` and arrival time,
    /// until the last commit's.
    static func followCommits(_ context: WorkloadContext, ready: () -> Void) async throws
        -> CrossProcessLatency.FollowerReport {
        var config = realmConfiguration(in: context, objectTypes: [StampObject.self])
        config.readOnly = true
        // The notifier's events: when it finished each version, and how long after the commit
        // watcher adopted it (the parts of the latency, `CrossProcessLatency.parts`).
        let notified = Recorded<[CrossProcessLatency.FollowerReport.Notified]>([])
        config.instrumentation = Realm.Instrumentation { event in
            guard case .changesComputed(let version, let lag) = event else { return }
            let at = CrossProcessLatency.now()
            let nanoseconds = Int(lag.components.seconds) * 1_000_000_000 + Int(lag.components.attoseconds / 1_000_000_000)
            notified.update { $0.append(.init(version: Int(version), at: at, lag: nanoseconds)) }
        }
        let realm = try Realm(configuration: config)
        var changes = realm.objects(StampObject.self).changes.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next(), initial.first?.seq == 0 else {
            throw WorkloadError("the initial element is missing or not at seq 0")
        }
        ready()
        var report = CrossProcessLatency.FollowerReport()
        while report.seqs.last != context.size.operations {
            guard let change = await changes.next() else { throw WorkloadError("the stream ended") }
            let receivedAt = CrossProcessLatency.now()
            guard case .update(let stamps, _, _, _) = change, let stamp = stamps.first else {
                throw WorkloadError("unexpected element \(change)")
            }
            report.record(seq: stamp.seq, stamp: stamp.sentAt, at: receivedAt)
        }
        report.notified = notified.current
        return report
    }

    /// Every commit syncs the file (there is no non-syncing mode in the public API yet), which is
    /// *more* durable than SQLite's synchronous=NORMAL in these single-transaction workloads.
    static let durability = "fdatasync on every commit"

    /// W8mp's file of repetition `repetition`, as the coordinator and every worker open it.
    static func crossProcessConfiguration(_ context: WorkloadContext, repetition: Int) -> Realm.Configuration {
        realmConfiguration(in: context, "w8mp-\(repetition)")
    }

    /// A W8mp worker's committer (see `MultiProcessCommits`): each task opens a handle of its own
    /// and commits one object per `asyncWrite`, as W8's tasks do. The handles' instrumentation
    /// counts the syncs (`flushed` events of a batch that made commits durable) into `syncs`.
    static func crossProcessCommitter(_ context: WorkloadContext, repetition: Int,
                                      syncs: Recorded<Int>) -> MultiProcessCommits.OpenCommitter {
        var config = crossProcessConfiguration(context, repetition: repetition)
        config.instrumentation = Realm.Instrumentation { event in
            if case .flushed(let commits, _, nil) = event, commits > 0 { syncs.update { $0 += 1 } }
        }
        return { [config] _ in
            let realm = try await Realm.open(configuration: config)
            return { person in try await realm.asyncWrite { realm.add(PersonObject(person)) } }
        }
    }

    /// What an instrumentation sink records — it is called on the library's threads — for the
    /// workload to read.
    final class Recorded<Value: Sendable>: Sendable {
        private let value: Mutex<Value>
        init(_ initial: Value) { value = Mutex(initial) }
        func update(_ body: (inout Value) -> Void) { value.withLock { body(&$0) } }
        var current: Value { value.withLock { $0 } }
    }

    /// The configuration of the realm file `name` of a run: always inside the run's own
    /// directory, so the child's cleanup removes it. `objectTypes` are the classes it stores:
    /// Person for every workload but W13, which stores Note alone. Encrypted with
    /// ``encryptionKey`` in an `--encrypted` run.
    static func realmConfiguration(in context: WorkloadContext, _ name: String = "bench",
                                   objectTypes: [ObjectBase.Type] = [PersonObject.self]) -> Realm.Configuration {
        Realm.Configuration(fileURL: context.directory.appendingPathComponent("\(name).realm"),
                            encryptionKey: encryptionKey, objectTypes: objectTypes)
    }

    /// The key of every realm file when the parent ran with `--encrypted` (it tells its children
    /// through the environment variable `REALM_BENCH_ENCRYPTED=1`), else nil.
    static let encryptionKey: Data? = ProcessInfo.processInfo.environment[Options.encryptedEnvironmentVariable] == "1"
        ? Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 0x35 &+ 7) }) : nil
}

/// One RealmActors workload run.
private struct RealmWorkload {
    let context: WorkloadContext
    var size: WorkloadSize { context.size }

    static var durability: String { RealmActorsSide.durability }

    /// A realm file holding rows `1...rows`, created and closed; returns its configuration.
    func makeFilledRealm(rows: Int, name: String = "bench") throws -> Realm.Configuration {
        let config = RealmActorsSide.realmConfiguration(in: context, name)
        let realm = try Realm(configuration: config)
        try realm.write {
            for id in stride(from: 1, through: rows, by: 1) { realm.add(PersonObject(Person.make(id: id))) }
        }
        return config
    }

    func bulkInsert() throws -> Measured {
        let people = Person.dataSet(count: size.rows)
        var samples: [Double] = []
        for repetition in 0..<context.repetitions {
            let config = RealmActorsSide.realmConfiguration(in: context, "rep\(repetition)")
            let realm = try Realm(configuration: config)
            samples.append(try Stopwatch.time {
                try realm.write {
                    for person in people { realm.add(PersonObject(person)) }
                }
            })
            let count = realm.objects(PersonObject.self).count
            guard count == size.rows else { throw WorkloadError("inserted \(count) rows, expected \(size.rows)") }
        }
        let rate = Double(size.rows) / Statistics.median(samples)
        return Measured(samples: samples, extras: ["rowsPerSecond": .init(rate, .perSecond)],
                        durability: Self.durability, checksum: size.rows)
    }

    func primaryKeyLookups() throws -> Measured {
        let realm = try Realm(configuration: makeFilledRealm(rows: size.rows))
        let ids = LookupKeys.randomIDs(count: size.operations, rows: size.rows)
        var checksum = 0
        let samples = try (0..<context.repetitions).map { _ in
            try Stopwatch.time {
                var ageSum = 0
                var nameBytes = 0
                for id in ids {
                    guard let person = realm.object(ofType: PersonObject.self, forPrimaryKey: id) else {
                        throw WorkloadError("no object with id \(id)")
                    }
                    nameBytes += person.name.utf8.count
                    ageSum += person.age
                }
                checksum = ageSum &* 1_000_003 &+ nameBytes
            }
        }
        return Measured(samples: samples, durability: Self.durability, checksum: checksum)
    }

    func fullIteration() throws -> Measured {
        let realm = try Realm(configuration: makeFilledRealm(rows: size.rows))
        var checksum = 0
        let samples = try (0..<context.repetitions).map { _ in
            try Stopwatch.time {
                var ageSum = 0
                var nameBytes = 0
                var count = 0
                for person in realm.objects(PersonObject.self) {
                    ageSum += person.age
                    nameBytes += person.name.utf8.count
                    count += 1
                }
                guard count == size.rows else { throw WorkloadError("iterated \(count) objects") }
                checksum = ageSum &* 1_000_003 &+ nameBytes
            }
        }
        return Measured(samples: samples, durability: Self.durability, checksum: checksum)
    }

    func openAndReadFirst() throws -> Measured {
        let config = try makeFilledRealm(rows: size.rows)  // closed again: the handle is gone
        let expected = Person.make(id: 1)
        var samples: [Double] = []
        for _ in 0..<context.repetitions {
            var first: Person?
            samples.append(try Stopwatch.time {
                let realm = try Realm(configuration: config)
                if let object = realm.objects(PersonObject.self).first {
                    first = Person(id: object.id, name: object.name, email: object.email, age: object.age,
                                   score: object.score, createdAt: object.createdAt)
                }
            })
            guard first == expected else { throw WorkloadError("first object \(String(describing: first))") }
        }
        return Measured(samples: samples, durability: Self.durability, checksum: expected.age)
    }

    func fileSize() throws -> Measured {
        let config = try makeFilledRealm(rows: size.rows)
        let realm = try Realm(configuration: config)
        let count = realm.objects(PersonObject.self).count
        let bytes = try FileManager.default.attributesOfItem(atPath: config.fileURL!.path)[.size] as? Int ?? 0
        return Measured(samples: [Double(bytes)], extras: ["databaseFile": .init(Double(bytes), .bytes)],
                        durability: Self.durability, checksum: count)
    }

    /// W3: count of `age < 30 AND score > 0.5` with no index: one pass over two columns.
    func filteredCount() throws -> Measured {
        let realm = try Realm(configuration: makeFilledRealm(rows: size.rows))
        let expected = Person.dataSet(count: size.rows).filter { $0.age < 30 && $0.score > 0.5 }.count
        var count = 0
        let samples = (0..<context.repetitions).map { _ in
            Stopwatch.time {
                count = realm.objects(PersonObject.self).where { $0.age < 30 && $0.score > 0.5 }.count
            }
        }
        guard count == expected else { throw WorkloadError("counted \(count), expected \(expected)") }
        return Measured(samples: samples, durability: Self.durability, checksum: count)
    }

    /// How W4 and W4b spell the email lookup.
    enum EmailQuery {
        /// W4: `filter("email == %@", email)`, the NSPredicate-style string many users write,
        /// parsed anew on every lookup.
        case stringPredicate
        /// W4b: `where { $0.email == email }`, the type-safe query.
        case typeSafe
    }

    /// W4 / W4b: `operations` equality queries on the indexed email, reading id and age. Each
    /// lookup is written out in full, `realm.objects(…).filter(…).first`, as an application
    /// looking up one object at a time would (nothing hoisted out of the loop).
    func indexedLookups(query: EmailQuery) throws -> Measured {
        let realm = try Realm(configuration: makeFilledRealm(rows: size.rows))
        let rows = LookupKeys.randomIDs(count: size.operations, rows: size.rows).map { Person.make(id: $0) }
        let emails = rows.map(\.email)
        let expected = rows.reduce(0) { $0 &* 1_000_003 &+ $1.id &* 100 &+ $1.age }
        func lookUp(_ email: String) -> PersonObject? {
            switch query {
            case .stringPredicate: realm.objects(PersonObject.self).filter("email == %@", email).first
            case .typeSafe: realm.objects(PersonObject.self).where { $0.email == email }.first
            }
        }
        var checksum = 0
        let samples = try (0..<context.repetitions).map { _ in
            try Stopwatch.time {
                checksum = 0
                for email in emails {
                    guard let person = lookUp(email) else { throw WorkloadError("no object with email \(email)") }
                    checksum = checksum &* 1_000_003 &+ person.id &* 100 &+ person.age
                }
            }
        }
        guard checksum == expected else { throw WorkloadError("checksum \(checksum), expected \(expected)") }
        return Measured(samples: samples, durability: Self.durability, checksum: checksum)
    }

    /// W6: every object sorted by age, then name; the first `operations` read.
    func sortedPrefix() throws -> Measured {
        let realm = try Realm(configuration: makeFilledRealm(rows: size.rows))
        var checksum = 0
        let samples = (0..<context.repetitions).map { _ in
            Stopwatch.time {
                let sorted = realm.objects(PersonObject.self)
                    .sorted(by: [SortDescriptor(keyPath: "age"), SortDescriptor(keyPath: "name")])
                checksum = 0
                for person in sorted.prefix(size.operations) {
                    checksum = checksum &* 31 &+ person.age &* 100 &+ person.name.utf8.count
                }
            }
        }
        return Measured(samples: samples, durability: Self.durability, checksum: checksum)
    }

    /// W7: `operations` transactions one after another, each adding one object with
    /// `asyncWrite` and returning when it is durable (nothing to group with: a sync per commit).
    /// Also measures the disk's raw sync rate in the same directory, for the ≥ 70 % target.
    func sequentialDurableCommits() async throws -> Measured {
        let count = size.operations
        var samples: [Double] = []
        for repetition in 0..<context.repetitions {
            let config = RealmActorsSide.realmConfiguration(in: context, "w7-\(repetition)")
            let realm = try await Realm.open(configuration: config)
            let people = (1...count).map { Person.make(id: $0) }
            samples.append(try await Stopwatch.time {
                for person in people { try await realm.asyncWrite { realm.add(PersonObject(person)) } }
            })
            let stored = realm.objects(PersonObject.self).count
            guard stored == count else { throw WorkloadError("\(stored) objects after the commits") }
        }
        let rate = Double(count) / Statistics.median(samples)
        let raw = try RawSync.rate(in: context.directory)
        return Measured(samples: samples,
                        extras: ["commitsPerSecond": .init(rate, .perSecond),
                                 "rawSyncsPerSecond": .init(raw, .perSecond),
                                 "percentOfRawSyncRate": .init(100 * rate / raw, .percent)],
                        durability: Self.durability, checksum: count)
    }

    /// W7s: `operations` durable one-object `asyncWrite`s while a frozen `Results` of the first
    /// version is held, then the same without it. The sample is the time with the snapshot;
    /// extras give both runs' median commit and final file size.
    func commitsWhileASnapshotIsHeld() async throws -> Measured {
        func run(_ name: String, holding: Bool) async throws -> (seconds: Double, median: Double, bytes: Double) {
            let config = RealmActorsSide.realmConfiguration(in: context, name)
            let realm = try await Realm.open(configuration: config)
            try await realm.asyncWrite { realm.add(PersonObject(Person.make(id: 1))) }
            let snapshot = holding ? realm.objects(PersonObject.self).freeze() : nil
            var latencies: [Double] = []
            let people = (2...size.operations + 1).map { Person.make(id: $0) }
            let seconds = try await Stopwatch.time {
                for person in people {
                    let start = ContinuousClock.now
                    try await realm.asyncWrite { realm.add(PersonObject(person)) }
                    latencies.append(Stopwatch.seconds(ContinuousClock.now - start))
                }
            }
            guard snapshot.map({ $0.count == 1 }) ?? true, realm.objects(PersonObject.self).count == size.operations + 1 else {
                throw WorkloadError("wrong counts after the commits")
            }
            let bytes = try FileManager.default.attributesOfItem(atPath: config.fileURL!.path)[.size] as? Int ?? 0
            return (seconds, Statistics.median(latencies), Double(bytes))
        }
        let held = try await run("held", holding: true)
        let free = try await run("free", holding: false)
        return Measured(samples: [held.seconds],
                        extras: ["medianCommitHeld": .init(held.median, .seconds), "medianCommitFree": .init(free.median, .seconds),
                                 "fileBytesHeld": .init(held.bytes, .bytes), "fileBytesFree": .init(free.bytes, .bytes),
                                 "secondsFree": .init(free.seconds, .seconds)],
                        durability: Self.durability, checksum: size.operations)
    }

    /// W9: `realm.objects(Person.self).changes` (all rows, in key = id order) iterated with
    /// `for await`; `operations` times, one object's score is updated with a durable `write` and
    /// the latency from the write's return to the arrival of the first element holding the new
    /// score is recorded (the notifier starts when the commit is durable, slightly before the
    /// write returns, so this slightly flatters neither side: GRDB's clock starts at its COMMIT).
    ///
    /// Extra: the notifier's CPU per commit with 100 registered queries (100 streams on
    /// `age == k`, each consumed), from process CPU time over `operations` commits minus the same
    /// commits with no observer.
    func observationLatency() async throws -> Measured {
        let config = try makeFilledRealm(rows: size.rows)
        let realm = try Realm(configuration: config)
        var changes = realm.objects(PersonObject.self).changes.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next(), initial.count == size.rows else {
            throw WorkloadError("the initial element is missing or incomplete")
        }
        let targets = LookupKeys.randomIDs(count: size.operations, rows: size.rows)
        var latencies: [Double] = []
        for (index, id) in targets.enumerated() {
            let score = 1 + Double(index)  // never a value the object had before
            try realm.write { realm.object(ofType: PersonObject.self, forPrimaryKey: id)!.score = score }
            let committed = ContinuousClock.now
            while true {
                guard let change = await changes.next() else { throw WorkloadError("the stream ended") }
                guard case .update(let people, _, _, let modifications) = change else { throw WorkloadError("\(change)") }
                if people[id - 1].score == score {
                    guard modifications == [id - 1] else { throw WorkloadError("modifications \(modifications), expected [\(id - 1)]") }
                    break
                }
            }
            latencies.append(Stopwatch.seconds(ContinuousClock.now - committed))
        }
        let sorted = try await sortedInsertLatency(realm, commits: 20)
        let cpu = try await notifierCPUPerCommit(realm, commits: size.operations, queries: 100)
        return Measured(
            samples: latencies,
            extras: [
                "p50": .init(Statistics.percentile(50, of: latencies), .seconds),
                "p99": .init(Statistics.percentile(99, of: latencies), .seconds),
                "notifierCPUPerCommit100Queries": .init(cpu, .seconds),
                "p50SortedByScoreOneInsert": .init(sorted, .seconds),
            ],
            durability: Self.durability, checksum: size.operations)
    }

    /// W16: A's side (see `CrossProcessLatency`): the file with its one object at seq 0, then
    /// durable commits (the default configuration) setting its `seq` and `sentAt`.
    func crossProcessLatency() throws -> Measured {
        var config = RealmActorsSide.realmConfiguration(in: context, objectTypes: [StampObject.self])
        // The version each commit made and when its flush ended (see `CrossProcessLatency.Published`).
        let version = RealmActorsSide.Recorded<Int?>(nil)
        let flushedAt = RealmActorsSide.Recorded<Int?>(nil)
        config.instrumentation = Realm.Instrumentation { event in
            switch event {
            case .committed(let committed, _): version.update { $0 = Int(committed) }
            case .flushed(let commits, _, nil) where commits > 0:
                let now = CrossProcessLatency.now()
                flushedAt.update { $0 = now }
            default: break
            }
        }
        let realm = try Realm(configuration: config)
        try realm.write { realm.add(StampObject()) }
        let stamp = realm.objects(StampObject.self).first!
        return try CrossProcessLatency.measure(context, side: .ours, durability: Self.durability) { seq, sentAt in
            version.update { $0 = nil }
            flushedAt.update { $0 = nil }
            try realm.write {
                stamp.seq = seq
                stamp.sentAt = sentAt
            }
            guard let version = version.current, let flushedAt = flushedAt.current else { return nil }
            return CrossProcessLatency.Published(version: version, flushedAt: flushedAt)
        }
    }

    /// W8mp's coordinator (see `MultiProcessCommits`): each repetition's file is made here with
    /// its schema and closed before the workers open it; afterwards its objects are counted.
    func crossProcessCommits() throws -> Measured {
        try MultiProcessCommits.measure(context, side: .ours, prepare: { repetition in
            _ = try Realm(configuration: RealmActorsSide.crossProcessConfiguration(context, repetition: repetition))
        }, count: { repetition in
            try Realm(configuration: RealmActorsSide.crossProcessConfiguration(context, repetition: repetition))
                .objects(PersonObject.self).count
        })
    }

    /// Median latency from commit to delivery on every object sorted by score when each commit
    /// inserts one object (it must land at its place in the sort order).
    private func sortedInsertLatency(_ realm: Realm, commits: Int) async throws -> Double {
        var changes = realm.objects(PersonObject.self).sorted(byKeyPath: "score").changes.makeAsyncIterator()
        guard case .initial = await changes.next() else { throw WorkloadError("no initial element") }
        var latencies: [Double] = []
        for index in 0..<commits {
            let id = size.rows + 1 + index
            try realm.write { realm.add(PersonObject(Person.make(id: id))) }
            let committed = ContinuousClock.now
            guard case .update(let people, _, let insertions, _) = await changes.next(), insertions.count == 1,
                  people[insertions[0]].id == id else { throw WorkloadError("the insertion was not reported") }
            latencies.append(Stopwatch.seconds(ContinuousClock.now - committed))
        }
        return Statistics.median(latencies)
    }

    /// Process CPU seconds per commit spent beyond the commits themselves while `queries`
    /// streams observe the table (each consumer awaits every change).
    private func notifierCPUPerCommit(_ realm: Realm, commits: Int, queries: Int) async throws -> Double {
        func cpuSeconds() -> Double {
            var time = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
            return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
        }
        func commit(_ index: Int) throws {
            try realm.write { realm.object(ofType: PersonObject.self, forPrimaryKey: 1 + index % size.rows)!.score = -Double(index) - 1 }
        }
        let bare = cpuSeconds()
        for index in 0..<commits { try commit(index) }
        let withoutObservers = cpuSeconds() - bare
        // 100 consumers, each awaiting every change of its query until told the last commit's version.
        let streams = (0..<queries).map { k in realm.objects(PersonObject.self).where { $0.age == k % 100 }.changes }
        let consumers = Task {
            await withTaskGroup(of: Void.self) { group in
                for stream in streams {
                    group.addTask {
                        for await change in stream {
                            // Reads only the modified objects, as a consumer applying changes would.
                            if case .update(let people, _, _, let modified) = change,
                               modified.contains(where: { people[$0].score == -1_000_000_000 }) { return }
                        }
                    }
                }
            }
        }
        // One object per query, for a last commit every consumer sees (found before timing).
        let lastIDs = (0..<100).compactMap { k in realm.objects(PersonObject.self).where { $0.age == k }.first?.id }
        // Wait until every stream has registered (delivered `.initial`): the observer count says.
        while realm.numberOfChangeObservers < queries + 1 { await Task.yield() }
        let start = cpuSeconds()
        for index in 0..<commits { try commit(index) }
        try realm.write {
            for id in lastIDs { realm.object(ofType: PersonObject.self, forPrimaryKey: id)?.score = -1_000_000_000 }
        }
        await consumers.value
        let withObservers = cpuSeconds() - start
        return max(0, withObservers - withoutObservers) / Double(commits)
    }

    /// W8: `tasks` concurrent tasks, each with its own handle, committing `operations` one-object
    /// transactions with `asyncWrite`; the writer's pipeline groups the waiting commits into
    /// shared syncs.
    func concurrentDurableCommits() async throws -> Measured {
        let perTask = size.operations
        let tasks = size.tasks
        let total = perTask * tasks
        var samples: [Double] = []
        for repetition in 0..<context.repetitions {
            let config = RealmActorsSide.realmConfiguration(in: context, "w8-\(repetition)")
            _ = try await Realm.open(configuration: config)  // creates the file and its schema
            samples.append(try await Stopwatch.time {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for task in 0..<tasks {
                        group.addTask {
                            let realm = try await Realm.open(configuration: config)
                            for index in 1...perTask {
                                let person = Person.make(id: task * perTask + index)
                                try await realm.asyncWrite { realm.add(PersonObject(person)) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            })
            // (No handle stays open at an old version during the run: a pinned version keeps
            // every page the writers free from being reused.)
            let stored = try await Realm.open(configuration: config).objects(PersonObject.self).count
            guard stored == total else { throw WorkloadError("\(stored) objects after the commits") }
        }
        let rate = Double(total) / Statistics.median(samples)
        return Measured(samples: samples, extras: ["commitsPerSecond": .init(rate, .perSecond)],
                        durability: Self.durability, checksum: total)
    }

    /// W15: readers during writes, for `seconds` each repetition. `tasks` reader actors, each
    /// with its own handle, look up random primary keys (reading name and age) and advance their
    /// handle with `refresh()` every `operations` lookups, while one writer actor commits durable
    /// one-object `asyncWrite`s (a new score for a random object) back to back. The sample is the
    /// readers' time per 1,000 lookups, all readers together; extras are the readers' lookups/s
    /// and the writer's commits/s. Afterwards every reader refreshes once more and must see the
    /// writer's last score: its handle really advances past the writer's commits. The readers
    /// also suspend (`Task.yield()`) every ``W15/lookupsPerYield`` lookups, so that they share
    /// the cooperative threads with the writer as well-behaved actor code does, and the writer
    /// runs at a higher priority (``W15/writerPriority``).
    func readersDuringDurableWrites() async throws -> Measured {
        let config = try makeFilledRealm(rows: size.rows)
        let readers = try await withThrowingTaskGroup(of: W15Reader.self) { group in
            let batch = size.operations
            for reader in 0..<size.tasks {
                let ids = LookupKeys.randomIDs(count: W15.idsPerRole, rows: size.rows, seed: W15.readerSeed(reader))
                group.addTask { try await W15Reader(configuration: config, ids: ids, batch: batch) }
            }
            var readers: [W15Reader] = []
            for try await reader in group { readers.append(reader) }
            return readers
        }
        let writer = try await W15Writer(
            configuration: config,
            ids: LookupKeys.randomIDs(count: W15.idsPerRole, rows: size.rows, seed: W15.writerSeed))
        let runTime = Duration.seconds(size.seconds ?? 1)
        var samples: [Double] = []
        var lookupRates: [Double] = []
        var commitRates: [Double] = []
        for repetition in 0..<context.repetitions {
            let deadline = ContinuousClock.now + runTime
            let writing = Task(priority: W15.writerPriority) { try await writer.run(until: deadline, repetition: repetition) }
            async let commits = writing.value
            let tallies = try await withThrowingTaskGroup(of: W15.ReaderTally.self) { group in
                for reader in readers { group.addTask { try await reader.run(until: deadline) } }
                var tallies: [W15.ReaderTally] = []
                for try await tally in group { tallies.append(tally) }
                return tallies
            }
            let written = try await commits
            let lookupsPerSecond = tallies.reduce(0) { $0 + Double($1.lookups) / $1.seconds }
            samples.append(1_000 / lookupsPerSecond)
            lookupRates.append(lookupsPerSecond)
            commitRates.append(Double(written.commits) / written.seconds)
            if let last = written.last {
                for reader in readers { try await reader.expectAfterRefresh(id: last.id, score: last.score) }
            }
        }
        return Measured(samples: samples,
                        extras: ["readerLookupsPerSecond": .init(Statistics.median(lookupRates), .perSecond),
                                 "writerCommitsPerSecond": .init(Statistics.median(commitRates), .perSecond)],
                        durability: Self.durability, checksum: nil)
    }

    func updateAll() throws -> Measured {
        let realm = try Realm(configuration: makeFilledRealm(rows: size.rows))
        var updated = 0
        let samples = try (0..<context.repetitions).map { repetition in
            try Stopwatch.time {
                updated = 0
                try realm.write {
                    for person in realm.objects(PersonObject.self) {
                        person.score = Double(repetition) + Double(person.id) * 1e-7
                        updated += 1
                    }
                }
            }
        }
        guard updated == size.rows else { throw WorkloadError("updated \(updated) objects") }
        return Measured(samples: samples, durability: Self.durability, checksum: updated)
    }

    /// W13: medium values. Each repetition, on a new file: the pre-generated notes `1...rows`
    /// inserted in one transaction (the sample); then the bytes on disk (``realmFileBytes(_:)``);
    /// then every note iterated, summing the bodies' UTF-8 lengths (checked against the data
    /// set's sum, which is the checksum). Extras: the medians of the file size and read time.
    func mediumValues() throws -> Measured {
        let notes = Note.dataSet(count: size.rows)
        let expected = notes.reduce(0) { $0 + $1.body.utf8.count }
        var samples: [Double] = []
        var fileSizes: [Double] = []
        var readTimes: [Double] = []
        for repetition in 0..<context.repetitions {
            let config = RealmActorsSide.realmConfiguration(in: context, "w13-\(repetition)", objectTypes: [NoteObject.self])
            do {  // the handle closes at the end of this scope, before its files are deleted
                let realm = try Realm(configuration: config)
                samples.append(try Stopwatch.time {
                    try realm.write {
                        for note in notes { realm.add(NoteObject(note)) }
                    }
                })
                fileSizes.append(Double(try realmFileBytes(config)))
                var bodyBytes = 0
                var count = 0
                readTimes.append(Stopwatch.time {
                    for note in realm.objects(NoteObject.self) {
                        bodyBytes += note.body.utf8.count
                        count += 1
                    }
                })
                guard count == size.rows, bodyBytes == expected else {
                    throw WorkloadError("read \(count) notes, \(bodyBytes) body bytes; expected \(size.rows), \(expected)")
                }
            }
            try Realm.deleteFiles(for: config)
        }
        return Measured(samples: samples,
                        extras: ["fileBytes": .init(Statistics.median(fileSizes), .bytes),
                                 "readSeconds": .init(Statistics.median(readTimes), .seconds)],
                        durability: Self.durability, checksum: expected)
    }

    /// The bytes on disk of the realm file of `config` and of every regular file beside it whose
    /// name starts with the realm file's name: its lock file and any other auxiliary file.
    func realmFileBytes(_ config: Realm.Configuration) throws -> Int {
        let url = config.fileURL!
        let keys: Set<URLResourceKey> = [.isRegularFileKey, .fileSizeKey]
        let files = try FileManager.default.contentsOfDirectory(at: url.deletingLastPathComponent(),
                                                                includingPropertiesForKeys: Array(keys))
        return try files.filter { $0.lastPathComponent.hasPrefix(url.lastPathComponent) }.reduce(0) { total, file in
            let values = try file.resourceValues(forKeys: keys)
            return total + (values.isRegularFile == true ? values.fileSize ?? 0 : 0)
        }
    }
}

/// A W15 reader: an actor owning its own handle, opened on it (actor-isolated), so its lookups
/// run on the actor and never share a handle with the other readers or the writer.
private actor W15Reader {
    /// Set in `init` (an implicitly unwrapped optional so that every stored property has a value
    /// before the handle is opened: only then does `init` run isolated to the actor, and only then
    /// is the handle bound to it).
    private var realm: Realm!
    private let ids: [Int]
    private let batch: Int
    /// Where this reader is in `ids`; kept across repetitions so they look up different objects.
    private var next = 0

    init(configuration: Realm.Configuration, ids: [Int], batch: Int) async throws {
        self.ids = ids
        self.batch = batch
        realm = try await Realm(configuration: configuration, actor: self)
        // W15 says when a reader advances: every `batch` lookups, by `refresh()`, not whenever a
        // commit becomes durable (which the autorefresh of an actor handle would do).
        realm.autorefresh = false
    }

    /// Looks up batches of `batch` random ids, refreshing after each, until `deadline`.
    func run(until deadline: ContinuousClock.Instant) async throws -> W15.ReaderTally {
        let start = ContinuousClock.now
        var tally = W15.ReaderTally()
        while ContinuousClock.now < deadline {
            var nameBytes = 0
            var ageSum = 0
            for lookup in 0..<batch {
                let id = ids[next]
                next = next + 1 == ids.count ? 0 : next + 1
                guard let person = realm.object(ofType: PersonObject.self, forPrimaryKey: id) else {
                    throw WorkloadError("reader: no object with id \(id)")
                }
                nameBytes += person.name.utf8.count
                ageSum += person.age
                if (lookup + 1) % W15.lookupsPerYield == 0 { await Task.yield() }
            }
            guard nameBytes == batch * W15.nameBytes, ageSum < batch * 100 else {
                throw WorkloadError("reader: read \(nameBytes) name bytes, ages summing to \(ageSum) in \(batch) lookups")
            }
            tally.lookups += batch
            realm.refresh()
        }
        tally.seconds = Stopwatch.seconds(ContinuousClock.now - start)
        return tally
    }

    /// Refreshes and throws unless object `id` now has `score` (the writer's last commit).
    func expectAfterRefresh(id: Int, score: Double) throws {
        realm.refresh()
        let seen = realm.object(ofType: PersonObject.self, forPrimaryKey: id)?.score
        guard seen == score else { throw WorkloadError("reader sees score \(String(describing: seen)) of \(id) after refresh, expected \(score)") }
    }
}

/// The W15 writer: an actor owning its own handle, committing one durable update per
/// `asyncWrite`, one after the other.
private actor W15Writer {
    /// Set in `init`; see ``W15Reader``'s `realm` for why it is an implicitly unwrapped optional.
    private var realm: Realm!
    private let ids: [Int]
    private var next = 0

    init(configuration: Realm.Configuration, ids: [Int]) async throws {
        self.ids = ids
        realm = try await Realm(configuration: configuration, actor: self)
    }

    /// Commits until `deadline`; each commit sets a new score on the next random object and
    /// returns once durable.
    func run(until deadline: ContinuousClock.Instant, repetition: Int) async throws -> W15.WriterTally {
        let realm = realm!
        let start = ContinuousClock.now
        var tally = W15.WriterTally()
        while ContinuousClock.now < deadline {
            let id = ids[next]
            next = next + 1 == ids.count ? 0 : next + 1
            let score = W15.score(repetition: repetition, commit: tally.commits)
            try await realm.asyncWrite {
                guard let person = realm.object(ofType: PersonObject.self, forPrimaryKey: id) else {
                    throw WorkloadError("writer: no object with id \(id)")
                }
                person.score = score
            }
            tally.commits += 1
            tally.last = (id, score)
        }
        tally.seconds = Stopwatch.seconds(ContinuousClock.now - start)
        return tally
    }
}

/// The disk's raw sync rate: overwriting one 4 KiB page and `fdatasync`ing it, repeatedly — the
/// floor under any durable commit (W7's "fraction of the disk's sync rate").
enum RawSync {
    static func rate(in directory: URL, syncs: Int = 200) throws -> Double {
        let path = directory.appendingPathComponent("raw-sync.bin").path
        let descriptor = open(path, O_RDWR | O_CREAT, 0o644)
        guard descriptor >= 0 else { throw WorkloadError("cannot create \(path)") }
        defer { close(descriptor); unlink(path) }
        var page = [UInt8](repeating: 7, count: 4096)
        func writeAndSync() throws {
            let written = page.withUnsafeMutableBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            guard written == 4096, fdatasync(descriptor) == 0 else { throw WorkloadError("raw write or sync failed") }
        }
        try writeAndSync()  // the page exists: later syncs overwrite, as commits mostly do
        let seconds = try Stopwatch.time {
            for index in 0..<syncs {
                page[0] = UInt8(truncatingIfNeeded: index)
                try writeAndSync()
            }
        }
        return Double(syncs) / seconds
    }
}
