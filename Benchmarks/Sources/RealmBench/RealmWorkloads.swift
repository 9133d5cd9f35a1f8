import BenchModel
import Foundation
import RealmActors

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
        // Issue 6: queries (filter, indexed equality, sort).
        case .w3, .w4, .w6: return .notImplemented(issue: 6)
        // Issue 5: durable commits and `asyncWrite` with group commit.
        case .w7, .w8: return .notImplemented(issue: 5)
        // Issue 7: change notifications (`for await` changesets).
        case .w9: return .notImplemented(issue: 7)
        }
    }

    /// The configuration of the realm file `name` of a run: always inside the run's own
    /// directory, so the child's cleanup removes it.
    static func realmConfiguration(in context: WorkloadContext, _ name: String = "bench") -> Realm.Configuration {
        Realm.Configuration(fileURL: context.directory.appendingPathComponent("\(name).realm"),
                            objectTypes: [PersonObject.self])
    }
}

/// The PERFORMANCE.md model as a RealmActors class (stored under the name "Person").
final class PersonObject: Object {
    override class func className() -> String { "Person" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var email = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
    @Persisted var createdAt = Date(timeIntervalSince1970: 0)

    convenience init(_ person: Person) {
        self.init()
        id = person.id
        name = person.name
        email = person.email
        age = person.age
        score = person.score
        createdAt = person.createdAt
    }
}

/// One RealmActors workload run.
private struct RealmWorkload {
    let context: WorkloadContext
    var size: WorkloadSize { context.size }

    /// Every commit syncs the file (there is no non-syncing mode in the public API yet), which is
    /// *more* durable than SQLite's synchronous=NORMAL in these single-transaction workloads.
    static let durability = "fdatasync on every commit"

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
}
