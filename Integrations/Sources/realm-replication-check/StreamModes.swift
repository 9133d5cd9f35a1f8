import Foundation
import PostgresNIO
import RealmActors

// The streamed run's modes: writers with the sink (`write`), the sink catching up, a migration
// in the backlog, and the comparison of every object with its row.

/// `write DIR SECONDS [--without-sink]`.
@MainActor func writeMode() async throws {
    let seconds = Double(arguments.count > 3 ? arguments[3] : "10") ?? 10
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // The slot first, so that every acknowledged commit is one the sink must deliver.
    let realm = try Realm(configuration: configuration)
    if try !realm.replicationSlots.contains(where: { $0.name == "check" }) {
        try realm.write { try realm.createReplicationSlot(named: "check") }
    }
    let deadline = ContinuousClock.now + .seconds(seconds)
    let first = realm.fileStatistics.version
    try await withThrowingTaskGroup(of: Void.self) { group in
        if !arguments.contains("--without-sink") { group.addTask { try await replicate(until: nil) } }
        for number in 0..<8 { group.addTask { try await Writer(number: number).run(until: deadline) } }
        for _ in 0..<8 { try await group.next() }
        // The writers are done: the newest version then, which Scripts/measure-replication.sh
        // compares with what PostgreSQL has when the sink is stopped right after.
        _ = realm.refresh()
        let newest = realm.fileStatistics.version
        print("write: versions \(first) to \(newest), \(Int(Double(newest - first) / seconds)) commits/s; the newest version \(newest)")
        group.cancelAll()
    }
}

/// `catch-up DIR`.
@MainActor func catchUpMode() async throws {
    let realm = try Realm(configuration: configuration)
    let slot = try realm.replicationSlots.first { $0.name == "check" }
    let position = slot?.confirmedVersion ?? 0, backlog = slot?.backlog.commits ?? 0
    // The last commit to replicate: the newest with changes. Not the file's newest version,
    // which may be a commit that only confirmed the slot (it is not delivered).
    var target = position
    let reading = ContinuousClock.now
    if backlog > 0 {
        var counted = 0
        var iterator = realm.commits(after: position).batched(maximumCount: 1_000).makeAsyncIterator()
        while counted < backlog, let batch = try await iterator.next() {
            counted += batch.count
            target = batch[batch.count - 1].version
        }
    }
    print("catch-up: the slot confirmed version \(position); \(backlog) commits to replicate, through version \(target); reading them alone took \(String(format: "%.2f", seconds(since: reading))) s")
    let began = ContinuousClock.now
    try await replicate(until: target)
    let elapsed = seconds(since: began)
    print("catch-up: \(backlog) commits in \(String(format: "%.1f", elapsed)) s (\(Int(Double(backlog) / max(elapsed, 0.001))) commits/s)")
}

/// `migrate DIR`.
@MainActor func migrateMode() throws {
    guard !isMigrated else { print("migrate: already at schema version 2"); exit(2) }
    var migrated = configuration
    migrated.objectTypes = [Owner.self, ItemV2.self, Event.self, Place.self]
    migrated.schemaVersion = 2
    migrated.migrationBlock = { migration, _ in
        migration.renameProperty(onType: "Item", from: "count", to: "quantity")
        migration.enumerateObjects(ofType: "Item") { old, new in
            if (old!["id"] as! Int) % 3 == 0 { new!["note"] = "migrated \(old!["title"] as! String)" }
            // The type change: every other object's score as text; the rest keep the default "".
            if (old!["id"] as! Int) % 2 == 0 { new!["score"] = "\(old!["score"] as! Double) points" }
        }
    }
    let realm = try Realm(configuration: migrated)
    _ = FileManager.default.createFile(atPath: migratedMarker.path, contents: nil)
    var random = SystemRandomNumberGenerator()
    for round in 0..<200 {
        try realm.write {
            let items = realm.objects(ItemV2.self)
            guard !items.isEmpty else { return }
            let item = items[Int.random(in: 0..<items.count, using: &random)]
            switch round % 4 {
            case 0: item.quantity += 1
            case 1: item.note = "after migration \(round)"; item.score = "scored \(round)"
            case 2: realm.create(ItemV2.self, value: ["id": 9_000_000 + round, "title": "v2 \(round)", "score": "new \(round)", "quantity": round, "note": "new"])
            default: realm.delete(item)
            }
        }
    }
    print("migrate: schema version 2 and 200 commits after it, \(try realm.replicationSlots.first?.backlog.commits ?? 0) commits pending")
}

/// `compare DIR` after `migrate`: every Item by its new columns.
@MainActor func compareMigratedMode() async throws -> Bool {
    // Schema version 2: every Item against its row by the new columns (`score` now text: its
    // column replaced and filled by the type change); `flag`'s column stays in PostgreSQL (a
    // removed property's column is kept) and is not compared.
    let realm = try Realm(configuration: configuration)
    var lost = 0, compared = 0
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await postgres.run() }
        var rows: [Int: (score: String, rest: String)] = [:]
        let result = try await postgres.query("""
            SELECT id, score, title || '|' || quantity::text || '|' || note || '|' || tags::text || '|' || coalesce(owner, '-')
            FROM "Item"
            """, logger: logger)
        for try await (id, score, rest) in result.decode((Int, String, String).self) { rows[id] = (score, rest) }
        for item in realm.objects(ItemV2.self) {
            compared += 1
            let tags = "[" + item.tags.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
            let expected = "\(item.title)|\(item.quantity)|\(item.note)|\(tags)|\(item.owner?.name ?? "-")"
            guard let row = rows.removeValue(forKey: item.id) else { lost += 1; print("missing: item \(item.id)"); continue }
            if row.rest != expected || row.score != item.score {
                lost += 1
                print("mismatch: item \(item.id): row \(row.score) \(row.rest), object \(item.score) \(expected)")
            }
        }
        if !rows.isEmpty { print("rows without an object: \(rows.keys.sorted().prefix(10))") }
        lost += rows.count
        group.cancelAll()
    }
    print("replication after a migration in the backlog: \(compared) objects compared, \(lost) lost")
    return lost == 0
}

/// `compare DIR`.
@MainActor func compareMode() async throws -> Bool {
    let realm = try Realm(configuration: configuration)
    var commits = 0
    for number in 0..<8 {
        let text = (try? String(contentsOf: directory.appendingPathComponent("acks-\(number)"), encoding: .utf8)) ?? ""
        commits += text.split(separator: "\n").count
    }
    var lost = 0
    var compared = 0
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await postgres.run() }
        var rows: [Int: (String, Double, Int, Bool, String, String?, String)] = [:]
        let result = try await postgres.query("""
            SELECT id, title, score, count, flag, tags::text, owner,
                   coalesce(place->>'city', '-') || ' ' || coalesce(place->>'floor', '-') || ' ' || coalesce(event::text, '-')
            FROM "Item"
            """, logger: logger)
        for try await (id, title, score, count, flag, tags, owner, rest) in result.decode((Int, String, Double, Int, Bool, String, String?, String).self) {
            rows[id] = (title, score, count, flag, tags, owner, rest)
        }
        for item in realm.objects(Item.self) {
            compared += 1
            guard let row = rows.removeValue(forKey: item.id) else { lost += 1; continue }
            let tags = "[" + item.tags.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
            // The embedded place and the event link (by the event's object key, as a bigint).
            let event: String
            if let key = item.event.flatMap(Realm.ObjectKey.init), case .objectKey(let value) = key { event = "\(Int64(bitPattern: value))" } else { event = "-" }
            let rest = "\(item.place?.city ?? "-") \(item.place.map { "\($0.floor)" } ?? "-") \(event)"
            if row.0 != item.title || row.1 != item.score || row.2 != item.count || row.3 != item.flag || row.4 != tags || row.5 != item.owner?.name
                || row.6 != rest {
                print("mismatch: item \(item.id): row \(row), object \(item.title) \(item.score) \(item.count) \(item.flag) \(tags) \(item.owner?.name ?? "nil") \(rest)")
                lost += 1
            }
        }
        if !rows.isEmpty { print("rows without an object (deletes not applied): \(rows.keys.sorted().prefix(10))") }
        lost += rows.count
        var owners = 0
        for try await _ in try await postgres.query("SELECT name FROM \"Owner\"", logger: logger).decode(String.self) { owners += 1 }
        if owners != realm.objects(Owner.self).count { print("owners: \(owners) rows, \(realm.objects(Owner.self).count) objects"); lost += 1 }
        compared += owners
        // Events have no primary key: their rows must hold the same (name, sequence) pairs.
        var events: [String] = []
        for try await (name, sequence) in try await postgres.query("SELECT name, sequence FROM \"Event\"", logger: logger).decode((String, Int).self) {
            events.append("\(name) \(sequence)")
        }
        let expected = realm.objects(Event.self).map { "\($0.name) \($0.sequence)" }
        if events.sorted() != expected.sorted() {
            print("events: \(events.count) rows, \(expected.count) objects, \(Set(expected).symmetricDifference(events).count) differ")
            lost += Set(expected).symmetricDifference(events).count
        }
        compared += events.count
        group.cancelAll()
    }
    print("replication: \(commits) commits, \(compared) objects replicated, \(lost) lost")
    return lost == 0
}
