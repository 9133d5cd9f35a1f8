// The object model's costs per object, on the W1/W5 `Person` rows: what an accessor, a property
// read, an unmanaged object and an insert cost, in ns per object. realm-bench's W1 and W5 time
// one run of each against SQLite; this repeats them enough times for a before/after of a change
// to the object model to stand out of this machine's noise (compare the minimums).
//
//   object-bench [COUNT] [MEASUREMENT [ROUNDS]]
//
// COUNT defaults to 1,000,000 objects. Naming a MEASUREMENT runs only it (after its setup),
// ROUNDS times: for `perf record`, or for `perf stat -e instructions` at two ROUNDS, whose
// difference is the measurement's alone (this machine's timings move by up to 1.5x between
// runs; instruction counts do not).
//
// What it prints, per measurement, ns per object (minimum and median of the rounds):
//   unmanaged   `PersonObject(person)`: an object and its 6 property setters
//   insert      `realm.add` of those objects in one write transaction (W1 without the
//               commit's sync; 3 rounds, each into a new file)
//   iterate0    `for person in realm.objects(…)` reading nothing: the accessors alone
//   iterate2    the same, reading age and name (W5)
//   iterate6    the same, reading every property
//   update      `person.score = …` for every object in one write transaction, its commit
//               included (W12 at this COUNT)
import BenchModel
import Foundation
import MeasurementRounds
import RealmActors
import RealmBenchModel

func nanoseconds(_ body: () throws -> Void) rethrows -> Double { try elapsed(in: 1e-9, body) }

let arguments = MeasurementRounds(defaultCount: 1_000_000)
let count = arguments.count
func rounds(_ name: String, _ rounds: Int) -> Range<Int> { arguments.rounds(name, rounds) }
let people = Person.dataSet(count: count)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("object-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
func configuration(_ name: String) -> Realm.Configuration {
    Realm.Configuration(fileURL: directory.appendingPathComponent("\(name).realm"), objectTypes: [PersonObject.self])
}

var rows: [(String, [Double])] = []
var sink = 0

rows.append(("unmanaged", rounds("unmanaged", 7).map { _ in
    nanoseconds {
        for person in people { sink &+= PersonObject(person).id }
    } / Double(count)
}))

var inserts: [Double] = []
for round in rounds("insert", 3) {
    let realm = try Realm(configuration: configuration("insert\(round)"))
    inserts.append(try nanoseconds {
        try realm.write { for person in people { realm.add(PersonObject(person)) } }
    } / Double(count))
}
rows.append(("insert", inserts))

let realm = try Realm(configuration: configuration("insert0"))
if realm.isEmpty {  // the inserts were not measured
    try realm.write { for person in people { realm.add(PersonObject(person)) } }
}
precondition(realm.objects(PersonObject.self).count == count)
rows.append(("iterate0", rounds("iterate0", 9).map { _ in
    nanoseconds {
        for person in realm.objects(PersonObject.self) { sink &+= person.isInvalidated ? 0 : 1 }
    } / Double(count)
}))
rows.append(("iterate2", rounds("iterate2", 9).map { _ in
    nanoseconds {
        for person in realm.objects(PersonObject.self) { sink &+= person.age &+ person.name.utf8.count }
    } / Double(count)
}))
rows.append(("iterate6", rounds("iterate6", 9).map { _ in
    nanoseconds {
        for person in realm.objects(PersonObject.self) {
            sink &+= person.id &+ person.age &+ person.name.utf8.count &+ person.email.utf8.count
                &+ Int(person.score * 10) &+ Int(person.createdAt.timeIntervalSince1970)
        }
    } / Double(count)
}))
rows.append(("update", try rounds("update", 5).map { round in
    try nanoseconds {
        try realm.write {
            for person in realm.objects(PersonObject.self) { person.score = Double(round) + Double(person.id) * 1e-7 }
        }
    } / Double(count)
}))

printRounds("object-bench: \(count) objects, ns per object (checksum \(sink & 0xFFFF))", rows)
