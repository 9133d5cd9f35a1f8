// Times a migration whose block rewrites one property of every object against the same rewrite
// as a plain write transaction, on the same data, each in its own process so that its peak RSS
// (getrusage's ru_maxrss) is its own.
//
//   migration-bench setup FILE COUNT    writes COUNT objects at schema version 1
//   migration-bench migrate FILE        opens at version 2; the block sets age = old age + 1
//   migration-bench update FILE         opens at version 1; one write sets age += 1
//
// Each measuring mode prints one line: mode, seconds, peak RSS in MiB, a checksum (sum of ages).
import Foundation
import RealmActors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class BenchPerson: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var score = 0.0
}

func configuration(_ path: String, version: UInt64) -> Realm.Configuration {
    Realm.Configuration(fileURL: URL(fileURLWithPath: path), schemaVersion: version, objectTypes: [BenchPerson.self])
}

/// Peak resident set size of this process, in MiB (ru_maxrss is KiB on Linux, bytes on macOS).
func peakRSS() -> Double {
    var usage = rusage()
    #if os(Linux)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
    #else
    getrusage(RUSAGE_SELF, &usage)
    return Double(usage.ru_maxrss) / 1_048_576
    #endif
}

func checksum(_ realm: Realm) -> Int {
    realm.objects(BenchPerson.self).sum(ofProperty: "age")
}

func report(_ mode: String, _ duration: Duration, _ realm: Realm) {
    let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    print(String(format: "%@ %.3f s, peak RSS %.1f MiB, checksum %d", mode, seconds, peakRSS(), checksum(realm)))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: migration-bench setup|migrate|update FILE [COUNT]\n".utf8))
    exit(64)
}
let path = arguments[2]
switch arguments[1] {
case "setup":
    let count = arguments.count > 3 ? Int(arguments[3]) ?? 1_000_000 : 1_000_000
    let realm = try Realm(configuration: configuration(path, version: 1))
    let batch = 100_000
    for start in stride(from: 0, to: count, by: batch) {
        try realm.write {
            for id in start..<min(start + batch, count) {
                realm.add(BenchPerson(value: ["name": "person \(id)", "age": id % 100, "score": Double(id) / 7]))
            }
        }
    }
case "migrate":
    var config = configuration(path, version: 2)
    config.migrationBlock = { migration, _ in
        migration.progressHandler = { _, done, total in
            FileHandle.standardError.write(Data("migrated \(done) of \(total)\n".utf8))
        }
        migration.progressInterval = 250_000
        migration.enumerateObjects(ofType: "BenchPerson") { oldObject, newObject in
            newObject!["age"] = (oldObject!["age"] as! Int) + 1
        }
    }
    let clock = ContinuousClock()
    var realm: Realm?
    let duration = try clock.measure { realm = try Realm(configuration: config) }
    report("migrate", duration, realm!)
case "update":
    let realm = try Realm(configuration: configuration(path, version: 1))
    let clock = ContinuousClock()
    let duration = try clock.measure {
        try realm.write {
            for person in realm.objects(BenchPerson.self) { person.age += 1 }
        }
    }
    report("update", duration, realm)
default:
    FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
    exit(64)
}
