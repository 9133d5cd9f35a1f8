import BenchModel
import Benchmark
import Foundation
import RealmActors
import RealmBenchModel

// RealmActors' side of the micro-benchmarks: single managed reads and lookups, with their
// allocation counts. The rule they check: a property read on a managed object is a few loads
// from the mapped file — no allocation (a String read allocates only beyond 15 UTF-8 bytes,
// where Swift's small-string form ends).

/// A realm of `fixtureRows` people in a temporary directory, and one managed object of it.
///
/// `@unchecked Sendable`: package-benchmark hands the fixture to the benchmark closure, which
/// runs on one thread at a time; the realm (confined to a thread in normal use) is only used
/// from that closure.
final class RealmFixture: @unchecked Sendable {
    let directory: URL
    let realm: Realm
    let person: PersonObject

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("realm-micro-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.appendingPathComponent("micro.realm"),
                                                                 objectTypes: [PersonObject.self]))
        try realm.write {
            for person in Person.dataSet(count: 10_000) {
                realm.add(PersonObject(value: ["id": person.id, "name": person.name, "email": person.email,
                                              "age": person.age, "score": person.score, "createdAt": person.createdAt]))
            }
        }
        self.realm = realm
        person = realm.object(ofType: PersonObject.self, forPrimaryKey: 1)!
        _ = person.age  // resolve the columns once
        _ = person.score
        _ = person.name
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

func realmBenchmarks(metrics: [BenchmarkMetric]) {
    Benchmark("RealmActors managed Int read", configuration: .init(metrics: metrics)) { benchmark, fixture in
        var sum = 0
        for _ in benchmark.scaledIterations { sum &+= fixture.person.age }
        blackHole(sum)
    } setup: {
        try RealmFixture()
    }

    Benchmark("RealmActors managed Double read", configuration: .init(metrics: metrics)) { benchmark, fixture in
        var sum = 0.0
        for _ in benchmark.scaledIterations { sum += fixture.person.score }
        blackHole(sum)
    } setup: {
        try RealmFixture()
    }

    Benchmark("RealmActors managed short String read", configuration: .init(metrics: metrics)) { benchmark, fixture in
        var length = 0
        for _ in benchmark.scaledIterations { length &+= fixture.person.name.utf8.count }
        blackHole(length)
    } setup: {
        try RealmFixture()
    }

    Benchmark("RealmActors PK lookup, read name+age", configuration: .init(metrics: metrics)) { benchmark, fixture in
        let ids = LookupKeys.randomIDs(count: benchmark.scaledIterations.count, rows: 10_000)
        benchmark.startMeasurement()
        for id in ids {
            let person = fixture.realm.object(ofType: PersonObject.self, forPrimaryKey: id)!
            blackHole(person.name)
            blackHole(person.age)
        }
        benchmark.stopMeasurement()
    } setup: {
        try RealmFixture()
    }
}
