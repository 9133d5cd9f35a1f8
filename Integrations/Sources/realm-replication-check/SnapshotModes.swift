import Foundation
import RealmActors

// The initial snapshot's measurement (Scripts/measure-replication.sh): a realm of small objects
// with the same rows in a CSV file (the floor: psql's COPY of it), then the sink's load.

/// `populate DIR N`.
@MainActor func populateMode() throws {
    let count = Int(arguments.count > 3 ? arguments[3] : "") ?? 1_000_000
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let realm = try Realm(configuration: snapshotConfiguration)
    let csvURL = directory.appendingPathComponent("small.csv")
    _ = FileManager.default.createFile(atPath: csvURL.path, contents: nil)
    let csv = try FileHandle(forWritingTo: csvURL)
    for start in stride(from: 0, to: count, by: 100_000) {
        var text = ""
        try realm.write {
            for id in start..<min(count, start + 100_000) {
                let small = Small(value: ["id": id, "name": "small object \(id)", "score": Double(id) / 7, "flag": id % 2 == 0])
                realm.add(small)
                text += "\(small.id),\(small.name),\(small.score),\(small.flag)\n"
            }
        }
        try csv.write(contentsOf: Data(text.utf8))
    }
    try csv.close()
    print("populate: \(count) objects; \(realm.fileStatistics.fileBytes / 1_048_576) MiB realm file")
}

/// `snapshot DIR`.
@MainActor func snapshotMode() async throws {
    let count = try Realm(configuration: snapshotConfiguration).objects(Small.self).count
    let began = ContinuousClock.now
    try await replicate(snapshotConfiguration, slot: "snapshot", until: 1)  // loaded: the sink applied the slot's position
    let elapsed = seconds(since: began)
    // What the process holds at the end, by kind: the heap (anonymous) apart from the realm
    // file's mapped pages, which the peak RSS counts too.
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let memory = status.split(separator: "\n").filter { $0.hasPrefix("RssAnon") || $0.hasPrefix("RssFile") }
        .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }.joined(separator: ", ")
    print("snapshot: \(count) objects in \(String(format: "%.2f", elapsed)) s (\(Int(Double(count) / max(elapsed, 0.001))) objects/s); at the end \(memory)")
}
