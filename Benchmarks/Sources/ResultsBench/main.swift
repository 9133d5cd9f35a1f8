// Partial reads of live filtered results on 1M objects: what reading the first objects costs
// against computing them all. Each line is the median of 5 rounds on a fresh `Results` (its
// cache empty), except "again" (the same results read twice).
//
//   results-bench [COUNT]     (default 1,000,000 objects; age = id % 100, so `age < 50` matches half)
//
// What it prints, per measurement, in µs:
//   count                    `filter("age < 50").count` (a column count, no keys)
//   prefix(20)               `Array(results.prefix(20))` after a count: the first 20 objects
//   prefix(20) again         the same results read again (cached keys)
//   first, unindexed         `filter("age == 77").first`: a scan that may stop at the first match
//   isEmpty, unindexed       `filter("age == 77").isEmpty`: the same
//   all keys                 `Array(results).count`: every match (what prefix(20) cost before
//                            it stopped early)
import Foundation
import RealmActors

final class Item: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var age = 0
    @Persisted var name = ""
}

func microseconds(_ body: () -> Void) -> Double {
    let start = ContinuousClock.now
    body()
    let elapsed = ContinuousClock.now - start
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18) * 1e6
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("results-bench-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
let realm = try Realm(configuration: Realm.Configuration(fileURL: directory.appendingPathComponent("items.realm"),
                                                         objectTypes: [Item.self]))
try realm.write {
    for id in 0..<count { realm.add(Item(value: ["id": id, "age": id % 100, "name": "item \(id)"])) }
}

var rows: [String: [Double]] = [:]
for _ in 0..<5 {
    let results = realm.objects(Item.self).filter("age < 50")
    rows["count", default: []].append(microseconds { _ = results.count })
    rows["prefix(20)", default: []].append(microseconds { precondition(Array(results.prefix(20)).count == 20) })
    rows["prefix(20) again", default: []].append(microseconds { _ = Array(results.prefix(20)) })
    let unindexed = realm.objects(Item.self).filter("age == 77")
    rows["first, unindexed", default: []].append(microseconds { precondition(unindexed.first?.id == 77) })
    let unindexedAgain = realm.objects(Item.self).filter("age == 77")
    rows["isEmpty, unindexed", default: []].append(microseconds { precondition(!unindexedAgain.isEmpty) })
    let all = realm.objects(Item.self).filter("age < 50")
    rows["all keys", default: []].append(microseconds { precondition(Array(all).count == count / 2) })
}
print("results-bench: \(count) objects, median of 5 rounds")
for name in ["count", "prefix(20)", "prefix(20) again", "first, unindexed", "isEmpty, unindexed", "all keys"] {
    print("  \(name.padding(toLength: 18, withPad: " ", startingAt: 0)) \(String(format: "%10.0f", median(rows[name]!))) µs")
}
