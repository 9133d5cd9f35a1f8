// What one small durable commit costs, in µs per commit, split into its parts: W7 (one object
// per `asyncWrite`, each waiting for its sync) repeated enough times for a before/after of a
// change to the commit path to stand out of this machine's noise (compare the minimums).
//
//   commit-bench [COMMITS] [MEASUREMENT [ROUNDS]]
//
// COMMITS defaults to 5,000 per round. Naming a MEASUREMENT runs only it, ROUNDS times (for
// `perf record`).
//
// What it prints, per measurement, µs per commit (minimum and median of the rounds):
//   memory-sync   `realm.write {}` on an in-memory realm: the CPU of a commit, no I/O, no
//                 thread handoff
//   memory-async  `asyncWrite` from an actor on an in-memory realm: the CPU plus the thread
//                 hand-offs, if the commit is synced on the commit queue (see GroupCommit)
//   file-sync     `realm.write {}` on a file: CPU, the writes and the sync, on the caller's
//                 thread
//   file-async    `asyncWrite` from an actor on a file: W7
//   raw-sync      one 4 KiB page overwritten and `fdatasync`ed: the disk's floor
//   raw-commit8   the I/O of a W7 commit without the database: 8 pages in one write at a
//                 rotating offset, a meta page, one `fdatasync` (a W7 commit writes 6–9 pages in
//                 3–5 runs plus its meta)
//   raw-runs5     7 pages in 4 runs (2, 2, 2, 1) and a meta page, one `fdatasync`: a W7 commit's
//                 I/O as the allocator lays it out today
//   raw-log9      9 pages in one write and no meta page: a commit whose record follows its
//                 pages in a log (the layout issue 19 suggests)
import BenchModel
import Foundation
import MeasurementRounds
import RealmActors
import RealmBenchModel

let arguments = MeasurementRounds(defaultCount: 5_000)
let commits = arguments.count
func rounds(_ name: String, _ rounds: Int) -> Range<Int> { arguments.rounds(name, rounds) }
let people = Person.dataSet(count: commits)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("commit-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

var serial = 0
/// A new realm for one round: a file in `directory`, or in memory.
@MainActor func freshConfiguration(inMemory: Bool) -> Realm.Configuration {
    serial += 1
    var configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("round\(serial).realm"),
                                            objectTypes: [PersonObject.self])
    if inMemory { configuration.inMemoryIdentifier = "commit-bench-\(serial)" }
    return configuration
}

var rows: [(String, [Double])] = []

for (name, inMemory) in [("memory-sync", true), ("file-sync", false)] {
    var samples: [Double] = []
    for _ in rounds(name, 5) {
        let realm = try Realm(configuration: freshConfiguration(inMemory: inMemory))
        samples.append(try elapsed(in: 1e-6) {
            for person in people { try realm.write { realm.add(PersonObject(person)) } }
        } / Double(commits))
        precondition(realm.objects(PersonObject.self).count == commits)
    }
    rows.append((name, samples))
}

/// Runs the `asyncWrite`s inside an actor of its own, as a service would (the main actor's
/// executor is a different one, with its own handoff costs).
actor Committer {
    func commit(_ people: [Person], configuration: Realm.Configuration) async throws -> Double {
        let realm = try await Realm.open(configuration: configuration)
        // Timed here, not through `elapsed`: its closure would not capture the actor, so it
        // would run off it, and the realm, isolated to this actor, traps when used elsewhere.
        let start = ContinuousClock.now
        for person in people { try await realm.asyncWrite { realm.add(PersonObject(person)) } }
        let took = ContinuousClock.now - start
        precondition(realm.objects(PersonObject.self).count == people.count)
        return seconds(took) * 1e6 / Double(people.count)
    }
}

for (name, inMemory) in [("memory-async", true), ("file-async", false)] {
    var samples: [Double] = []
    for _ in rounds(name, 5) {
        samples.append(try await Committer().commit(people, configuration: freshConfiguration(inMemory: inMemory)))
    }
    rows.append((name, samples))
}

/// Overwrites runs of `runs` pages (one write each, 3 pages apart) at a rotating offset, then
/// a meta page if `meta`, and syncs, `commits` times: the I/O floor of a commit laid out so.
func rawCommits(runs: [Int], meta: Bool = true) throws -> Double {
    let path = directory.appendingPathComponent("raw.bin").path
    let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
    precondition(descriptor >= 0, "cannot create \(path)")
    defer { close(descriptor); unlink(path) }
    let span = 64
    var buffer = [UInt8](repeating: 7, count: 4096 * span)
    buffer.withUnsafeBytes { for page in 0..<span { _ = pwrite(descriptor, $0.baseAddress, 4096, off_t(page * 4096)) } }
    fsync(descriptor)
    let footprint = runs.reduce(0) { $0 + $1 + 3 }
    let start = ContinuousClock.now
    for index in 0..<commits {
        buffer[0] = UInt8(truncatingIfNeeded: index)
        buffer.withUnsafeBytes { bytes in
            var offset = 2 + (index * footprint) % (span - 2 - footprint)
            for pages in runs {
                _ = pwrite(descriptor, bytes.baseAddress, 4096 * pages, off_t(offset * 4096))
                offset += pages + 3
            }
            if meta { _ = pwrite(descriptor, bytes.baseAddress, 4096, off_t((index & 1) * 4096)) }
        }
        precondition(fdatasync(descriptor) == 0, "fdatasync failed")
    }
    return seconds(ContinuousClock.now - start) * 1e6 / Double(commits)
}
rows.append(("raw-sync", try rounds("raw-sync", 5).map { _ in try rawCommits(runs: [], meta: true) }))
rows.append(("raw-commit8", try rounds("raw-commit8", 5).map { _ in try rawCommits(runs: [8]) }))
rows.append(("raw-runs5", try rounds("raw-runs5", 5).map { _ in try rawCommits(runs: [2, 2, 2, 1]) }))
rows.append(("raw-log9", try rounds("raw-log9", 5).map { _ in try rawCommits(runs: [9], meta: false) }))

printRounds("commit-bench: \(commits) commits per round, µs per commit", rows, decimals: 1)
