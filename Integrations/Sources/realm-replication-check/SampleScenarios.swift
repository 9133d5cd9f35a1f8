import Foundation
import RealmActors
import RealmPostgres

// The scenarios of Scripts/test-replication.sh that end in a comparison or a stop, on a realm of
// `Sample`s (DIR/samples.realm, slot `samples`); each runs against its own database
// (REALM_POSTGRES_DATABASE), so that its tables are its own:
//
//   samples DIR populate N [FIRST]   N samples (ids FIRST…), 10,000 a commit
//   samples DIR edit COMMITS         commits of random inserts, edits and deletes
//   samples DIR extremes FIRST       objects with the values PostgreSQL cannot store as they are
//   samples DIR create-slot          the slot, through the library (as an application would)
//   samples DIR sync [--resynchronize] [--limit-bytes B]
//                                    the sink (confirming every commit) until PostgreSQL holds the
//                                    realm's newest commit; creating the slot with a retention
//                                    limit of B bytes, if it creates it
//   samples DIR follow SECONDS       the sink while a writer commits for SECONDS, then until caught up
//   samples DIR compare              every sample against its row (``SampleComparison``)
//
// A sink that stops prints `stopped: REASON: MESSAGE` and the mode exits with 3.

let samplesConfiguration = Realm.Configuration(fileURL: directory.appendingPathComponent("samples.realm"), objectTypes: [Sample.self])
let samplesSlot = "samples"

/// Runs `samples DIR ACTION …`; returns the exit status.
@MainActor func samplesMode() async throws -> Int32 {
    guard arguments.count > 3 else { print("samples: no action"); return 2 }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let action = arguments[3], argument = arguments.count > 4 ? Int(arguments[4]) : nil
    func option(_ name: String) -> String? { arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }
    switch action {
    case "populate":
        let count = argument ?? 1_000, first = arguments.count > 5 ? Int(arguments[5]) ?? 0 : 0
        let realm = try Realm(configuration: samplesConfiguration)
        for start in stride(from: first, to: first + count, by: 10_000) {
            try realm.write {
                for id in start..<min(first + count, start + 10_000) { realm.add(Sample.ordinary(id), update: .modified) }
            }
        }
        print("samples: \(realm.objects(Sample.self).count) objects")
    case "edit":
        let realm = try Realm(configuration: samplesConfiguration)
        var random = SystemRandomNumberGenerator()
        let span = Sample.span(realm)
        for commit in 0..<(argument ?? 100) { try realm.write { Sample.edit(realm, span: span, commit: commit, using: &random) } }
        print("samples: \(argument ?? 100) commits; \(realm.objects(Sample.self).count) objects")
    case "extremes":
        let realm = try Realm(configuration: samplesConfiguration)
        let values = try Sample.extremes(first: argument ?? 0)
        try realm.write { for sample in values { realm.add(sample, update: .modified) } }
        print("samples: \(values.count) objects with extreme values")
    case "create-slot":
        let realm = try Realm(configuration: samplesConfiguration)
        try realm.write { try realm.createReplicationSlot(named: samplesSlot) }
        print("samples: created slot '\(samplesSlot)'")
    case "sync", "follow":
        let limits = Realm.ReplicationRetentionLimits(maximumRetainedBytes: option("--limit-bytes").flatMap { Int($0) })
        let sink = PostgresReplicationSink(configuration: samplesConfiguration, slot: samplesSlot, client: postgres, logger: logger,
                                           confirmEvery: 1, slotLimits: limits, resynchronize: arguments.contains("--resynchronize"))
        let probe = BacklogProbe(configuration: samplesConfiguration)
        let writer = SampleWriter()
        let deadline = ContinuousClock.now + .seconds(action == "follow" ? Double(argument ?? 2) : 0)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                if action == "follow" { group.addTask { try await writer.run(until: deadline) } } else { await writer.finish() }
                group.addTask {
                    try await replicate(sink, until: {
                        guard await writer.isFinished else { return false }
                        return try await probe.caughtUp(at: sink.appliedVersion)
                    })
                }
                for try await _ in group {}
            }
        } catch let stop as ReplicationSinkError {
            print("stopped: \(stop.reason.rawValue): \(stop.description)")
            return 3
        }
        print("samples: PostgreSQL holds version \(await sink.appliedVersion)\(action == "follow" ? " after \(await writer.commits) commits made while the sink ran" : "")")
    case "compare":
        return try await SampleComparison.run() ? 0 : 1
    default:
        print("samples: unknown action \(action)")
        return 2
    }
    return 0
}

/// A handle of its own on a realm, to ask whether a sink has applied every commit the realm
/// holds for it (its backlog after the sink's applied version is empty).
actor BacklogProbe {
    let configuration: Realm.Configuration
    var realm: Realm?

    init(configuration: Realm.Configuration) { self.configuration = configuration }

    func caughtUp(at applied: UInt64) async throws -> Bool {
        guard applied > 0 else { return false }
        if realm == nil { realm = try await Realm(configuration: configuration, actor: self) }
        _ = realm!.refresh()
        return try realm!.replicationBacklog(after: applied).commits == 0
    }
}

/// `follow`'s writer: random edits, a commit every 20 ms or so, until its deadline.
actor SampleWriter {
    private(set) var isFinished = false
    private(set) var commits = 0

    func finish() { isFinished = true }

    func run(until deadline: ContinuousClock.Instant) async throws {
        defer { isFinished = true }
        let realm = try await Realm(configuration: samplesConfiguration, actor: self)
        var random = SystemRandomNumberGenerator()
        let span = Sample.span(realm)
        while ContinuousClock.now < deadline {
            let commit = commits
            try await realm.asyncWrite { Sample.edit(realm, span: span, commit: commit, using: &random) }
            commits += 1
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

extension Sample {
    /// An object with ordinary values, all of them derived from its id.
    static func ordinary(_ id: Int) -> Sample {
        Sample(value: ["id": id, "name": "sample \(id)", "amount": id * 7, "score": Double(id) / 3, "ratio": Float(id) / 8,
                       "flag": id % 2 == 0, "moment": Date(timeIntervalSince1970: 1_700_000_000 + Double(id) + 0.25),
                       "payload": Data([UInt8(id & 0xFF), UInt8(id >> 8 & 0xFF), 0, 0xFF]), "price": Decimal128(id),
                       "token": UUID(), "note": id % 3 == 0 ? NSNull() : "note \(id)"] as [String: Any])
    }

    /// The ids edits draw from: the existing ones and 100 more.
    static func span(_ realm: Realm) -> Int {
        (realm.objects(Sample.self).max(of: \.id) ?? 0) + 100
    }

    /// One commit's random edits, inside a write transaction: inserts, edits of each kind of
    /// value, deletes.
    static func edit(_ realm: Realm, span: Int, commit: Int, using random: inout some RandomNumberGenerator) {
        for _ in 0..<Int.random(in: 1...5, using: &random) {
            let id = Int.random(in: 0..<span, using: &random)
            guard let sample = realm.object(ofType: Sample.self, forPrimaryKey: id) else {
                realm.add(ordinary(id))
                continue
            }
            switch Int.random(in: 0..<8, using: &random) {
            case 0: sample.name = "edited \(commit) \"quoted\" ünïcode"
            case 1: sample.amount -= commit
            case 2: sample.score = Double(commit) * 1.5; sample.ratio = Float(commit) / 4
            case 3: sample.moment = Date(timeIntervalSince1970: 1_600_000_000 + Double(commit) * 3_600.125); sample.flag.toggle()
            case 4: sample.payload = Data((0..<(commit % 40)).map { UInt8(truncatingIfNeeded: $0 * 31) })
            case 5: sample.price = Decimal128(commit) / Decimal128(8); sample.note = commit % 2 == 0 ? nil : "note \(commit)"
            case 6: sample.token = UUID()
            default: realm.delete(sample)
            }
        }
    }

    /// Objects `first`… with the values PostgreSQL cannot store as they are (the sink's
    /// documented mapping, **Values**), and the extremes it can: NUL in strings, dates far
    /// outside `timestamptz`'s range, `Decimal128` NaN and ±infinity, `Double` and `Float` NaN
    /// and ±infinity, `Int64.min` and `.max`, strings of about a megabyte, empty and large data.
    static func extremes(first: Int) throws -> [Sample] {
        let huge = String(repeating: "ünïcode ✓ 0123456789 ", count: 1_048_576 / 24)
        let values: [[String: Any]] = [
            ["name": "nul\u{0}inside\u{0}", "amount": Int.min, "score": Double.nan, "ratio": Float.nan,
             "moment": Date(timeIntervalSince1970: 1e15), "payload": Data(), "price": Decimal128.nan, "note": "\u{0}"],
            ["name": huge, "amount": Int.max, "score": Double.infinity, "ratio": Float.infinity,
             "moment": Date(timeIntervalSince1970: -1e15), "payload": Data(repeating: 0xA5, count: 262_144), "price": Decimal128.infinity],
            ["name": "", "amount": 0, "score": -Double.infinity, "ratio": -Float.infinity, "moment": Date.distantPast,
             "price": -Decimal128.infinity, "note": huge + "\u{0}"],
            ["name": "\u{0}", "amount": -1, "score": Double.greatestFiniteMagnitude, "ratio": Float.greatestFiniteMagnitude,
             "moment": Date.distantFuture, "price": try Decimal128(string: "1234567890123456789012345678901.234")],
            ["name": "émoji 🎉\u{0}👩‍👩‍👧 combining e\u{301}", "amount": 1, "score": Double.leastNonzeroMagnitude, "ratio": -Float.leastNonzeroMagnitude,
             "moment": Date(timeIntervalSince1970: -0.000_001), "price": try Decimal128(string: "-0.000001"), "note": ""],
            ["name": "max decimal", "score": -0.0, "moment": Date(timeIntervalSince1970: 9e12), "price": Decimal128.max],
        ]
        return values.enumerated().map { offset, value in
            Sample(value: value.merging(["id": first + offset, "token": UUID()]) { $1 })
        }
    }
}
