// The replication check that Scripts/test-replication.sh runs against a throwaway PostgreSQL
// (REALM_POSTGRES_HOST, _PORT, _USER, _DATABASE in the environment):
//
//   realm-replication-check write DIR SECONDS   8 writer actors commit inserts, updates, deletes,
//                                               list edits, edits of embedded objects alone and links
//                                               to a class without a primary key (whose deletion
//                                               nullifies them) for SECONDS while the sink replicates; the
//                                               script may SIGKILL it at any moment. Each writer
//                                               appends its acknowledged commits to DIR/acks-<n>.
//   realm-replication-check write DIR SECONDS --without-sink
//                                               the same writes, with no sink: a backlog for catch-up
//                                               to measure (Scripts/measure-replication.sh).
//   realm-replication-check catch-up DIR        the sink alone, until PostgreSQL holds the realm's
//                                               last commit; prints the commits per second.
//   realm-replication-check migrate DIR         with no sink running (a backlog pending): migrates the
//                                               realm to schema version 2 (Item's `count` renamed
//                                               `quantity`, `flag` removed, `note` added and set on
//                                               every third object), then 200 commits in the new
//                                               schema; later modes open it at version 2, and
//                                               compare checks Item by its new columns.
//   realm-replication-check compare DIR         every object against its row, and every row against
//                                               an object; prints `replication: N commits, M objects
//                                               replicated, L lost` and exits 1 unless L is 0.
//   realm-replication-check populate DIR N      N small objects (`Small`: id, name, score, flag) in
//                                               DIR/snapshot.realm, with no slot, and the same rows
//                                               in DIR/small.csv: the initial snapshot's input, and
//                                               the floor's (psql's COPY of the CSV file).
//   realm-replication-check snapshot DIR        a sink on DIR/snapshot.realm with no progress row:
//                                               creates its slot and loads the initial snapshot;
//                                               prints the objects per second (Scripts/measure-replication.sh
//                                               runs it under /usr/bin/time -v for the peak RSS).
import Foundation
import Logging
import PostgresNIO
import RealmActors
import RealmPostgres

final class Owner: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var city = ""
}

/// A class without a primary key: replicated by object key (`_realm_key`).
final class Event: Object {
    @Persisted var name = ""
    @Persisted var sequence = 0
}

/// Embedded: replicated in its owner's jsonb column, which an edit of it alone writes again.
final class Place: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var floor = 0
}

final class Item: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var score = 0.0
    @Persisted var count = 0
    @Persisted var flag = false
    @Persisted var tags: List<String>
    @Persisted var owner: Owner?
    @Persisted var place: Place?
    /// A link to a class without a primary key: its row holds the target's `_realm_key`.
    @Persisted var event: Event?
}

/// `Item` at schema version 2 (`migrate`): `count` renamed `quantity`, `flag` removed, `note` added.
final class ItemV2: Object {
    override class func className() -> String { "Item" }
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var score = 0.0
    @Persisted var quantity = 0
    @Persisted var note = ""
    @Persisted var tags: List<String>
    @Persisted var owner: Owner?
    @Persisted var place: Place?
    @Persisted var event: Event?
}

/// The initial snapshot's measured objects: small, as a row of a wide table is not.
final class Small: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0.0
    @Persisted var flag = false
}

let arguments = CommandLine.arguments
guard arguments.count >= 3, let mode = arguments.dropFirst().first else {
    print("usage: realm-replication-check write DIR SECONDS [--without-sink] | catch-up DIR | migrate DIR | compare DIR | populate DIR COUNT | snapshot DIR")
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[2])
/// Whether `migrate` has run: the realm is at schema version 2 from then on.
let migratedMarker = directory.appendingPathComponent("migrated")
let isMigrated = FileManager.default.fileExists(atPath: migratedMarker.path)
let configuration: Realm.Configuration = {
    var configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("replicated.realm"),
                                            objectTypes: [Owner.self, isMigrated ? ItemV2.self : Item.self, Event.self, Place.self])
    configuration.schemaVersion = isMigrated ? 2 : 0
    return configuration
}()
let snapshotConfiguration = Realm.Configuration(fileURL: directory.appendingPathComponent("snapshot.realm"), objectTypes: [Small.self])
let environment = ProcessInfo.processInfo.environment
/// Warnings and errors (the sink's retries), or REALM_REPLICATION_LOG_LEVEL's (`debug`, say, to
/// see the PostgreSQL client's connection pool too).
let logger: Logger = {
    var logger = Logger(label: "realm-replication-check")
    logger.logLevel = environment["REALM_REPLICATION_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
    return logger
}()
let postgres = PostgresClient(configuration: .init(
    host: environment["REALM_POSTGRES_HOST"] ?? "127.0.0.1", port: Int(environment["REALM_POSTGRES_PORT"] ?? "") ?? 5432,
    username: environment["REALM_POSTGRES_USER"] ?? "postgres", password: nil,
    database: environment["REALM_POSTGRES_DATABASE"] ?? "postgres", tls: .disable), backgroundLogger: logger)

/// One writer: its own actor and handle; ids in its own range.
actor Writer {
    let number: Int
    let acknowledgements: FileHandle
    init(number: Int) throws {
        self.number = number
        let path = directory.appendingPathComponent("acks-\(number)").path
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        acknowledgements = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try acknowledgements.seekToEnd()
    }

    func run(until deadline: ContinuousClock.Instant) async throws {
        let realm = try await Realm(configuration: configuration, actor: self)
        var random = SystemRandomNumberGenerator()
        let base = number * 1_000_000
        var commit = 0
        while ContinuousClock.now < deadline {
            commit += 1
            let current = commit
            try await realm.asyncWrite {
                for _ in 0..<Int.random(in: 1...6, using: &random) {
                    let id = base + Int.random(in: 0..<300, using: &random)
                    let item = realm.object(ofType: Item.self, forPrimaryKey: id)
                    switch Int.random(in: 0..<12, using: &random) {
                    case 0..<4 where item == nil:
                        let owner = realm.create(Owner.self, value: ["name": "owner-\(number)-\(id % 7)", "city": "c\(current % 5)"], update: .modified)
                        realm.create(Item.self, value: ["id": id, "title": "item \(id) \(current)", "score": Double(current) / 3,
                                                        "count": current, "tags": ["a\(current % 3)"], "owner": owner,
                                                        "place": ["city": "p\(current % 4)", "floor": 0]])
                    case 4..<7 where item != nil:
                        item!.title = "edited \(current) \"quoted\" ünïcode"
                        item!.score += 0.5
                        item!.flag.toggle()
                    case 7 where item != nil:
                        item!.tags.append("t\(current)")
                    case 8 where item != nil:
                        realm.delete(item!)
                    case 9 where current % 3 == 0:
                        realm.create(Event.self, value: ["name": "e\(number)-\(current)", "sequence": current])
                        if current % 5 == 0, let old = realm.objects(Event.self).filter("name BEGINSWITH %@", "e\(number)-").first {
                            realm.delete(old)
                        }
                    case 10 where item != nil:
                        // The embedded object alone: the owner's row must still be rewritten.
                        if let place = item!.place { place.floor += 1 } else { item!.place = Place(value: ["city": "new", "floor": current]) }
                    case 11 where item != nil:
                        item!.event = realm.objects(Event.self).filter("name BEGINSWITH %@", "e\(number)-").last
                    default:
                        item?.count += 1
                    }
                }
            }
            try acknowledgements.write(contentsOf: Data("\(current)\n".utf8))
        }
    }
}

/// The sink of `slot` until PostgreSQL holds `target` (or until cancelled, while `target` is nil).
///
/// The client outlives the sink, as a ServiceGroup orders them ([client, sink] shuts down in
/// reverse): it is cancelled only after the sink has returned. Cancelled together, a sink
/// cancelled mid-transaction can wait forever on a connection the stopped client never answers.
func replicate(_ configuration: Realm.Configuration = configuration, slot: String = "check", until target: UInt64?) async throws {
    let sink = PostgresReplicationSink(configuration: configuration, slot: slot, client: postgres, logger: logger, confirmEvery: 16)
    let client = Task { await postgres.run() }
    defer { client.cancel() }
    guard let target else { return try await sink.run() }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await sink.run() }
        while await sink.appliedVersion < target { try await Task.sleep(for: .milliseconds(20)) }  // polling progress, not synchronizing
        group.cancelAll()
        while true {
            do {
                guard try await group.next() != nil else { break }
            } catch is CancellationError {}
        }
    }
}

switch mode {
case "write":
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
case "catch-up":
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
    print("catch-up: the slot confirmed version \(position); \(backlog) commits to replicate, through version \(target); reading them alone took \(ContinuousClock.now - reading)")
    let began = ContinuousClock.now
    try await replicate(until: target)
    let elapsed = (ContinuousClock.now - began).components
    let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    print("catch-up: \(backlog) commits in \(String(format: "%.1f", seconds)) s (\(Int(Double(backlog) / max(seconds, 0.001))) commits/s)")
case "migrate":
    guard !isMigrated else { print("migrate: already at schema version 2"); exit(2) }
    var migrated = configuration
    migrated.objectTypes = [Owner.self, ItemV2.self, Event.self, Place.self]
    migrated.schemaVersion = 2
    migrated.migrationBlock = { migration, _ in
        migration.renameProperty(onType: "Item", from: "count", to: "quantity")
        migration.enumerateObjects(ofType: "Item") { old, new in
            if (old!["id"] as! Int) % 3 == 0 { new!["note"] = "migrated \(old!["title"] as! String)" }
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
            case 1: item.note = "after migration \(round)"
            case 2: realm.create(ItemV2.self, value: ["id": 9_000_000 + round, "title": "v2 \(round)", "quantity": round, "note": "new"])
            default: realm.delete(item)
            }
        }
    }
    print("migrate: schema version 2 and 200 commits after it, \(try realm.replicationSlots.first?.backlog.commits ?? 0) commits pending")
case "compare" where isMigrated:
    // Schema version 2: every Item against its row by the new columns; `flag`'s column stays
    // in PostgreSQL (a removed property's column is kept) and is not compared.
    let realm = try Realm(configuration: configuration)
    var lost = 0, compared = 0
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await postgres.run() }
        var rows: [Int: (score: Double, rest: String)] = [:]
        let result = try await postgres.query("""
            SELECT id, score, title || '|' || quantity::text || '|' || note || '|' || tags::text || '|' || coalesce(owner, '-')
            FROM "Item"
            """, logger: logger)
        for try await (id, score, rest) in result.decode((Int, Double, String).self) { rows[id] = (score, rest) }
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
    exit(lost == 0 ? 0 : 1)
case "compare":
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
    exit(lost == 0 ? 0 : 1)
case "populate":
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
case "snapshot":
    let count = try Realm(configuration: snapshotConfiguration).objects(Small.self).count
    let began = ContinuousClock.now
    try await replicate(snapshotConfiguration, slot: "snapshot", until: 1)  // loaded: the sink applied the slot's position
    let elapsed = (ContinuousClock.now - began).components
    let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    // What the process holds at the end, by kind: the heap (anonymous) apart from the realm
    // file's mapped pages, which the peak RSS counts too.
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let memory = status.split(separator: "\n").filter { $0.hasPrefix("RssAnon") || $0.hasPrefix("RssFile") }
        .map { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }.joined(separator: ", ")
    print("snapshot: \(count) objects in \(String(format: "%.2f", seconds)) s (\(Int(Double(count) / max(seconds, 0.001))) objects/s); at the end \(memory)")
default:
    print("unknown mode \(mode)")
    exit(2)
}
