import Foundation
import RealmActors
import Testing

final class RIAddress: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var zip: String?
}

final class RIPerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var name = ""
    @Persisted var age = 0
    @Persisted var score: Double?
    @Persisted var ratio: Float = 0
    @Persisted var active = false
    @Persisted var born = Date(timeIntervalSince1970: 0)
    @Persisted var photo: Data?
    @Persisted var token = UUID()
    @Persisted var objectID = ObjectId.generate()
    @Persisted var balance = Decimal128(number: 0)
    @Persisted var extra: AnyRealmValue = .none
    @Persisted var address: RIAddress?
    @Persisted var friend: RIPerson?
    @Persisted var tags: List<String>
    @Persisted var visits: MutableSet<Int>
    @Persisted var notes: Map<String, String?>
    @Persisted var pets: List<RIPet>
}

/// A class without a primary key: a link to it is written as the object nested.
final class RIPet: Object {
    @Persisted var name = ""
    @Persisted(originProperty: "pets") var owners: LinkingObjects<RIPerson>
}

/// `realm-inspect` run as a user runs it, on files written through the public API: what each
/// subcommand prints, and that bad input of every kind (command lines, predicates, files)
/// gives a message and an exit status, never a crash.
@Suite struct InspectorTests {
    let workspace: InspectorWorkspace
    let path: String

    init() throws {
        workspace = try InspectorWorkspace()
        path = workspace.path("people.realm")
    }

    static let objectTypes: [ObjectBase.Type] = [RIPerson.self, RIAddress.self, RIPet.self]

    /// 200 people (ids 0..<200, age = id % 50, the even ones with a score), each with a pet.
    @discardableResult
    func makeRealm(encryptionKey: Data? = nil) throws -> Realm.Configuration {
        try InspectorWorkspace.makeRealm(at: path, encryptionKey: encryptionKey, objectTypes: Self.objectTypes) { realm in
            var previous: RIPerson?
            for id in 0..<200 {
                let person = RIPerson()
                person.id = id
                person.name = "person \(id), \"quoted\""
                person.age = id % 50
                person.score = id % 2 == 0 ? Double(id) / 4 : nil
                person.ratio = 0.5
                person.active = id % 3 == 0
                person.born = Date(timeIntervalSince1970: 86_400 * Double(id))
                person.photo = id == 1 ? Data([1, 2, 3]) : nil
                person.extra = Self.mixedValue(id)
                person.address = RIAddress()
                person.address!.city = "City \(id % 7)"
                person.friend = previous
                person.tags.append(objectsIn: ["a\(id)", "b"])
                person.visits.insert(id)
                person.notes["k"] = "v\(id)"
                let pet = RIPet()
                pet.name = "pet \(id)"
                person.pets.append(pet)
                realm.add(person)
                if id % 12 == 11 { person.extra = .object(pet) }
                previous = person
            }
        }
    }

    /// A value of each kind `AnyRealmValue` holds, by `id % 12` (11: a link, set after the pet exists).
    static func mixedValue(_ id: Int) -> AnyRealmValue {
        switch id % 12 {
        case 0: .none
        case 1: .int(id)
        case 2: .string("mixed \(id)")
        case 3: .double(Double(id) + 0.25)
        case 4: .float(Float(id) / 8)
        case 5: .date(Date(timeIntervalSince1970: Double(id) * 1_000.000_123))
        case 6: .data(Data([UInt8(id), 0, 255]))
        case 7: .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        case 8: .objectId(try! ObjectId(string: "507f1f77bcf86cd7994390\(String(format: "%02d", id % 100))"))
        case 9: .decimal128(Decimal128(id))
        case 10: .bool(true)
        default: .none
        }
    }

    static func jsonObject(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }

    @Test func infoReportsHowThePagesAreUsed() throws {
        try makeRealm()
        let outcome = try workspace.run("info", path, "--format", "json")
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let info = try Self.jsonObject(outcome.standardOutput)
        let file = try #require(info["fileBytes"] as? Int), live = try #require(info["liveBytes"] as? Int)
        let free = try #require(info["freeBytes"] as? Int), pinned = try #require(info["pinnedBytes"] as? Int)
        #expect(file == live + free + pinned)
        #expect(file > 0 && live > 0)
        #expect(info["formatVersion"] as? Int == 8)
        #expect(info["pageSize"] as? Int == 4096)
        #expect(info["encrypted"] as? Bool == false)
        let objects = try #require(info["objects"] as? [String: Any])
        #expect(objects["RIPerson"] as? Int == 200)
        #expect(objects["RIPet"] as? Int == 200)
        #expect(objects["RIAddress"] is NSNull)
        let text = try workspace.run("info", path)
        #expect(text.status == 0)
        #expect(text.standardOutput.contains("RIPerson: 200 objects"))
        #expect(text.standardOutput.contains("format version: 8"))
    }

    @Test func schemaInEachFormat() throws {
        try makeRealm()
        let json = try workspace.run("schema", path, "--format=json")
        #expect(json.status == 0, "\(json.standardError)")
        let classes = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(classes.map { $0["className"] as? String } == ["RIAddress", "RIPerson", "RIPet"])
        let person = try #require(classes.first { $0["className"] as? String == "RIPerson" })
        #expect(person["primaryKey"] as? String == "id")
        let properties = try #require(person["properties"] as? [[String: Any]])
        #expect(properties.count == 18)
        let notes = try #require(properties.first { $0["name"] as? String == "notes" })
        #expect(notes["collection"] as? String == "map")
        #expect(notes["type"] as? String == "string")
        #expect(notes["optional"] as? Bool == true)
        let pet = try #require(classes.first { $0["className"] as? String == "RIPet" })
        let computed = try #require(pet["computedProperties"] as? [[String: Any]])
        #expect(computed.first?["originProperty"] as? String == "pets")

        let swift = try workspace.run("schema", path, "--format", "swift")
        #expect(swift.status == 0)
        for declaration in ["class RIAddress: EmbeddedObject {", "@Persisted(primaryKey: true) var id: Int",
                            "@Persisted(indexed: true) var name: String", "@Persisted var score: Double?",
                            "@Persisted var extra: AnyRealmValue", "@Persisted var address: RIAddress?",
                            "@Persisted var visits: MutableSet<Int>", "@Persisted var notes: Map<String, String?>",
                            "@Persisted var pets: List<RIPet>", "@Persisted(originProperty: \"pets\") var owners: LinkingObjects<RIPerson>"] {
            #expect(swift.standardOutput.contains(declaration), "missing: \(declaration)")
        }
        let text = try workspace.run("schema", path)
        #expect(text.standardOutput.contains("  id: int, primary key"))
        #expect(text.standardOutput.contains("  tags: list<string>"))
    }

    @Test func countWithAndWithoutAPredicate() throws {
        try makeRealm()
        #expect(try workspace.run("count", path, "RIPerson").lines == ["200"])
        #expect(try workspace.run("count", path, "RIPerson", "age < 10").lines == ["40"])
        #expect(try workspace.run("count", path, "RIPerson", "score != nil AND name BEGINSWITH 'person 1'").lines == ["55"])
        #expect(try workspace.run("count", path, "RIPet", "ANY owners.age == 3").lines == ["4"])
    }

    @Test func queryWritesEachFormat() throws {
        try makeRealm()
        let jsonl = try workspace.run("query", path, "RIPerson", "age == 3", "--format", "jsonl", "--sort", "id:desc")
        #expect(jsonl.status == 0, "\(jsonl.standardError)")
        let objects = try jsonl.lines.map(Self.jsonObject)
        #expect(objects.compactMap { $0["id"] as? Int } == [153, 103, 53, 3])
        let first = try #require(objects.first)
        #expect(Set(first.keys) == Set(["id", "name", "age", "score", "ratio", "active", "born", "photo", "token", "objectID",
                                        "balance", "extra", "address", "friend", "tags", "visits", "notes", "pets"]))
        #expect(first["name"] as? String == "person 153, \"quoted\"")
        #expect(first["score"] is NSNull)
        #expect(first["friend"] as? Int == 152)  // a link to a class with a primary key: the key
        #expect((first["address"] as? [String: Any])?["city"] as? String == "City 6")  // embedded: nested
        #expect((first["pets"] as? [[String: Any]])?.first?["name"] as? String == "pet 153")  // no primary key: nested
        #expect(first["tags"] as? [String] == ["a153", "b"])
        #expect(first["notes"] as? [String: String] == ["k": "v153"])
        #expect(first["born"] as? String == "1970-06-03T00:00:00.000Z")

        let limited = try workspace.run("query", path, "RIPerson", "--sort", "age:desc,id", "--limit", "3", "--format", "json")
        let array = try #require(try JSONSerialization.jsonObject(with: Data(limited.standardOutput.utf8)) as? [[String: Any]])
        #expect(array.compactMap { $0["id"] as? Int } == [49, 99, 149])

        let csv = try workspace.run("query", path, "RIPerson", "id == 1", "--format", "csv")
        let rows = csv.standardOutput.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.count == 2)
        #expect(rows[0].hasPrefix("id,name,age,score,"))
        #expect(rows[1].hasPrefix("1,\"person 1, \"\"quoted\"\"\",1,,0.5,false,"))
        #expect(rows[1].contains(",AQID,"))  // the photo, base64

        let table = try workspace.run("query", path, "RIPerson", "id < 3")
        #expect(table.lines.count == 5)
        #expect(table.lines[0].hasPrefix("id  name"))
        #expect(table.lines[1].hasPrefix("--  ----"))

        let empty = try workspace.run("query", path, "RIPerson", "id < 0", "--format", "json")
        #expect(try JSONSerialization.jsonObject(with: Data(empty.standardOutput.utf8)) as? [Any] != nil)
    }

    @Test func badPredicatesAndClassesExitWithAMessage() throws {
        try makeRealm()
        let predicates = ["age <", "age < 'x'", "nosuch == 1", "age == 1 AND", "(age == 1", "name BEGINSWITH 3", "age IN {1,",
                          "tags.@count > 'a'", "ANY age == 1", "SUBQUERY(pets, $p, $p.nosuch == 1).@count > 0", String(repeating: "(", count: 10_000),
                          String(repeating: "NOT ", count: 10_000) + "age == 1"]
        for predicate in predicates {
            let outcome = try workspace.run("query", path, "RIPerson", predicate)
            #expect(!outcome.crashed && outcome.status == 1, "\(predicate): status \(outcome.status), \(outcome.standardError)")
            #expect(outcome.standardError.hasPrefix("Error: "), "\(predicate)")
            #expect(outcome.standardOutput.isEmpty)
        }
        let unknown = try workspace.run("count", path, "Nobody")
        #expect(unknown.status == 1)
        #expect(unknown.standardError.contains("RIPerson"))
        let embedded = try workspace.run("count", path, "RIAddress")
        #expect(embedded.status == 1)
        #expect(embedded.standardError.contains("embedded"))
        let sort = try workspace.run("query", path, "RIPerson", "--sort", "nosuch")
        #expect(sort.status == 1)
    }

    @Test func usageErrorsExitWithTwo() throws {
        try makeRealm()
        for arguments in [[], ["frobnicate", path], ["count", path], ["count", path, "RIPerson", "age > 1", "extra"],
                          ["query", path, "RIPerson", "--format", "xml"], ["query", path, "RIPerson", "--limit", "-1"],
                          ["query", path, "RIPerson", "--limit"], ["info", path, "--quiet=yes"], ["query", path, "RIPerson", "--sort", "age:up"],
                          ["info", path, "--encryption-key-file", workspace.path("missing")]] {
            let outcome = try workspace.run(arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.status) \(outcome.standardError)")
            #expect(!outcome.standardError.isEmpty)
        }
        for arguments in [["--help"], ["help"], ["help", "query"], ["query", "--help"], ["--version"]] {
            let outcome = try workspace.run(arguments)
            #expect(outcome.status == 0, "\(arguments)")
            #expect(!outcome.standardOutput.isEmpty)
        }
        #expect(try workspace.run("help", "query").standardOutput.contains("--sort <keypath>"))
    }

    @Test func checkFindsDamage() throws {
        try makeRealm()
        let good = try workspace.run("check", path)
        #expect(good.status == 0, "\(good.standardError)")
        #expect(good.standardOutput.hasPrefix("ok: version"))

        // Damage one byte in the middle of every fifth page past the meta pages.
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        for page in stride(from: 2, to: data.count / 4096, by: 5) { data[page * 4096 + 2000] ^= 0x5A }
        try data.write(to: URL(fileURLWithPath: path))
        let bad = try workspace.run("check", path)
        #expect(!bad.crashed && bad.status == 1, "\(bad.status) \(bad.standardError)")
        #expect(bad.standardError.hasPrefix("Error: "))
        #expect(bad.standardOutput.isEmpty)

        let notARealm = workspace.path("text.realm")
        try Data(repeating: 0x41, count: 20_000).write(to: URL(fileURLWithPath: notARealm))
        for arguments in [["check", notARealm], ["info", notARealm], ["query", notARealm, "X"],
                          ["check", workspace.path("missing.realm")]] {
            let outcome = try workspace.run(arguments)
            #expect(!outcome.crashed && outcome.status == 1, "\(arguments): \(outcome.standardError)")
        }
    }

    @Test func compactAndCopyKeepTheObjects() throws {
        let configuration = try makeRealm()
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.delete(realm.objects(RIPerson.self).filter("id >= 20")) }
        }
        let before = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let compact = try workspace.run("compact", path)
        #expect(compact.status == 0, "\(compact.standardError)")
        let after = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(after < before)
        #expect(try workspace.run("count", path, "RIPerson").lines == ["20"])
        #expect(try workspace.run("check", path).status == 0)

        let copyPath = workspace.path("copy.realm")
        #expect(try workspace.run("copy", path, copyPath).status == 0)
        #expect(try workspace.run("count", copyPath, "RIPet").lines == ["200"])
        let again = try workspace.run("copy", path, copyPath)
        #expect(again.status == 1)  // the destination exists
    }

    /// `info` shows replication slots; `compact` refuses a file with one (it would drop the
    /// versions the slot retains); `drop-slot` drops it, and then `compact` works.
    @Test func replicationSlotsAreShownDroppedAndBlockCompaction() throws {
        let configuration = try makeRealm()
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { try realm.createReplicationSlot(named: "warehouse") }
            try realm.write { realm.delete(realm.objects(RIPerson.self).filter("id >= 20")) }
        }
        let info = try workspace.run("info", path)
        #expect(info.lines.contains("replication slots: 1"), "\(info.lines)")
        // Its backlog: the one commit after it, and how long ago that was made.
        #expect(info.lines.contains { $0.hasPrefix("  warehouse: confirmed version ") && $0.contains(", pending commits 1, oldest ") }, "\(info.lines)")
        let json = try Self.jsonObject(try workspace.run("info", path, "--format", "json").standardOutput)
        let slot = try #require((json["replicationSlots"] as? [[String: Any]])?.first)
        #expect(slot["pendingCommits"] as? Int == 1 && slot["oldestPendingCommitTime"] is String)
        #expect(info.lines.contains { $0.hasPrefix("retained bytes: ") && $0 != "retained bytes: 0" })
        let refused = try workspace.run("compact", path)
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("has replication slots (warehouse)"))
        #expect(try workspace.run("drop-slot", path, "missing").status == 1)
        let dropped = try workspace.run("drop-slot", path, "warehouse")
        #expect(dropped.status == 0, "\(dropped.standardError)")
        #expect(try workspace.run("info", path).lines.contains("replication slots: 0"))
        #expect(try workspace.run("compact", path).status == 0)
        #expect(try workspace.run("check", path).status == 0)
    }

    /// `resync-slot` asks a slot's consumer for a resynchronization: the slot is invalidated with
    /// that reason (it keeps nothing from then on, so the file compacts, the slot carried into
    /// the copy), `info` says so; a slot a retention limit invalidated takes the new reason;
    /// asking again changes nothing; a missing slot is a problem (exit 1).
    @Test func resyncSlotInvalidatesTheSlotWithTheOperatorsReason() throws {
        let configuration = try makeRealm()
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write {
                try realm.createReplicationSlot(named: "warehouse")
                try realm.createReplicationSlot(named: "limited", limits: .init(maximumRetainedBytes: 4_096))
            }
            for round in 0..<4 { try realm.write { for person in realm.objects(RIPerson.self) { person.age += round } } }
            let slots = try realm.replicationSlots
            #expect(slots.first { $0.name == "limited" }?.invalidation?.reason == .retainedBytes)
            #expect(slots.first { $0.name == "warehouse" }?.invalidation == nil)
        }
        let limited = try workspace.run("info", path)
        #expect(limited.lines.contains { $0.contains("INVALIDATED") && $0.contains("realm-inspect resync-slot FILE limited") }, "\(limited.lines)")
        #expect(try workspace.run("resync-slot", path, "missing").status == 1)
        for name in ["warehouse", "limited"] {
            let asked = try workspace.run("resync-slot", path, name)
            #expect(asked.status == 0, "\(asked.standardError)")
            #expect(asked.standardOutput.contains("requested a resynchronization of slot '\(name)'"), "\(asked.standardOutput)")
        }
        let again = try workspace.run("resync-slot", path, "warehouse")
        #expect(again.status == 0 && again.standardOutput.contains("requested already"), "\(again.standardOutput)")
        let json = try Self.jsonObject(try workspace.run("info", path, "--format", "json").standardOutput)
        let slots = try #require(json["replicationSlots"] as? [[String: Any]])
        #expect(slots.count == 2)
        for slot in slots {
            #expect((slot["invalidated"] as? [String: Any])?["reason"] as? String == "resynchronizationRequested", "\(slot)")
            #expect(slot["retainedBytes"] as? Int == 0)
        }
        let info = try workspace.run("info", path)
        #expect(info.lines.filter { $0.contains("INVALIDATED") && $0.contains("operator's request") }.count == 2, "\(info.lines)")
        #expect(info.lines.contains("retained bytes: 0"), "\(info.lines)")
        #expect(try workspace.run("compact", path).status == 0)
        let checked = try workspace.run("check", path)
        #expect(checked.status == 0, "\(checked.standardError)")
        let realm = try Realm(configuration: configuration)
        #expect(try realm.replicationSlots.map { $0.invalidation?.reason } == [.resynchronizationRequested, .resynchronizationRequested])
    }

    @Test func encryptedFilesNeedTheirKey() throws {
        let key = Data((0..<64).map { UInt8($0 * 3 & 0xFF) })
        try makeRealm(encryptionKey: key)
        let raw = try workspace.keyFile(key, named: "key.bin"), hex = try workspace.keyFile(key, named: "key.hex", hex: true)
        for keyFile in [raw, hex] {
            let outcome = try workspace.run("count", path, "RIPerson", "--encryption-key-file", keyFile)
            #expect(outcome.lines == ["200"], "\(outcome.standardError)")
        }
        let withoutKey = try workspace.run("count", path, "RIPerson")
        #expect(withoutKey.status == 1)
        #expect(withoutKey.standardError.contains("encrypted"))
        let info = try workspace.run("info", path, "--encryption-key-file", raw, "--format", "json")
        #expect(try Self.jsonObject(info.standardOutput)["encrypted"] as? Bool == true)
        #expect(try workspace.run("check", path, "--encryption-key-file", hex).status == 0)
    }

    /// realm-inspect reads a live file: another process (this one) has it open for writing, and
    /// each run sees its newest commit — including a class it added since.
    @Test func aFileOpenForWritingInAnotherProcessIsReadAtItsNewestCommit() throws {
        let configuration = try makeRealm()
        let realm = try Realm(configuration: configuration)
        #expect(try workspace.run("count", path, "RIPerson").lines == ["200"])
        try realm.write {
            for id in 200..<250 {
                let person = RIPerson()
                person.id = id
                realm.add(person)
            }
        }
        #expect(try workspace.run("count", path, "RIPerson").lines == ["250"])
        #expect(try workspace.run("count", path, "RIPerson", "id >= 240").lines == ["10"])
        let check = try workspace.run("check", path)
        #expect(check.status == 0, "\(check.standardError)")
        // Compacting replaces the file: refused while another process has it open.
        let compact = try workspace.run("compact", path)
        #expect(compact.status == 1 && compact.standardError.contains("open in another process"), "\(compact.standardError)")
        withExtendedLifetime(realm) {}
    }

    @Test func dumpAndLoadRoundTripEveryKindOfValue() throws {
        try makeRealm()
        let dump = try workspace.run("dump", path)
        #expect(dump.status == 0, "\(dump.standardError)")
        #expect(dump.lines.count == 1 + 200 + 200)
        let header = try Self.jsonObject(dump.lines[0])
        #expect(header["realmDump"] as? Int == 1)
        let pet = try Self.jsonObject(try #require(dump.lines.first { $0.hasPrefix("{\"$class\":\"RIPet\"") }))
        #expect(pet["$id"] as? Int == 0)
        let person = try Self.jsonObject(try #require(dump.lines.first { $0.contains("\"id\":5,") }))
        #expect(person["pets"] as? [[String: Int]] == [["$id": 5]])
        #expect((person["extra"] as? [String: Any])?["$type"] as? String == "date")

        let dumpFile = URL(fileURLWithPath: workspace.path("people.jsonl"))
        try Data(dump.standardOutput.utf8).write(to: dumpFile)
        let loadedPath = workspace.path("loaded.realm")
        let load = try workspace.run("load", dumpFile.path, loadedPath)
        #expect(load.status == 0, "\(load.standardError)")
        #expect(load.standardOutput == "loaded 400 objects into \(loadedPath)\n")
        let again = try workspace.run("dump", loadedPath)
        #expect(again.standardOutput == dump.standardOutput)
        #expect(try workspace.run("check", loadedPath).status == 0)

        // The loaded file opens with the model classes and reads the same objects.
        let loaded = try InspectorWorkspace.openReadOnly(loadedPath, objectTypes: Self.objectTypes)
        let original = try InspectorWorkspace.openReadOnly(path, objectTypes: Self.objectTypes)
        for (left, right) in zip(original.objects(RIPerson.self), loaded.objects(RIPerson.self)) {
            #expect(left.id == right.id && left.name == right.name && left.score == right.score && left.born == right.born)
            #expect(left.token == right.token && left.objectID == right.objectID && left.balance == right.balance)
            #expect(left.photo == right.photo && left.address?.city == right.address?.city && left.friend?.id == right.friend?.id)
            #expect(Array(left.tags) == Array(right.tags) && Array(left.visits) == Array(right.visits))
            #expect(left.pets.first?.name == right.pets.first?.name)
            switch (left.extra, right.extra) {
            case (.object(let a), .object(let b)): #expect(a.objectSchema.className == b.objectSchema.className)
            default: #expect(left.extra == right.extra, "id \(left.id)")
            }
        }
        #expect(loaded.objects(RIPet.self).filter("owners.@count == 1").count == 200)
    }

    @Test func aBadDumpIsRefusedAndLeavesNoFile() throws {
        try makeRealm()
        let lines = try workspace.run("dump", path).lines
        let first = lines[1]
        func edited(_ line: String, _ old: String, _ new: String) -> String { line.replacingOccurrences(of: old, with: new) }
        let cases: [(String, [String])] = [
            ("empty", []),
            ("not a header", [first]),
            ("truncated line", [lines[0], String(first.prefix(first.count / 2))]),
            ("wrong type", [lines[0], edited(first, "\"age\":0", "\"age\":\"zero\"")]),
            ("fraction for an int", [lines[0], edited(first, "\"age\":0", "\"age\":0.5")]),
            ("null for a required value", [lines[0], edited(first, "\"age\":0", "\"age\":null")]),
            ("unknown property", [lines[0], edited(first, "\"age\":0", "\"years\":0")]),
            ("unknown class", [lines[0], edited(first, "\"$class\":\"RIPerson\"", "\"$class\":\"Nobody\"")]),
            ("duplicate primary key", [lines[0], first, first]),
            ("link to nothing", [lines[0], edited(lines[2], "\"friend\":0", "\"friend\":999")]),
            ("bad date", [lines[0], edited(first, "\"born\":\"1970-01-01T00:00:00.000Z\"", "\"born\":\"yesterday\"")]),
            ("bad base64", [lines[0], edited(lines[2], "\"photo\":\"AQID\"", "\"photo\":\"***\"")]),
            ("bad mixed tag", [lines[0], edited(lines[4], "\"$type\":\"double\"", "\"$type\":\"quaternion\"")]),
            ("pet numbered out of order", [lines[0]] + lines.filter { $0.contains("\"RIPet\"") }.dropFirst().prefix(1)),
        ]
        for (name, content) in cases {
            let dumpFile = URL(fileURLWithPath: workspace.path("bad.jsonl"))
            try Data((content.joined(separator: "\n") + (content.isEmpty ? "" : "\n")).utf8).write(to: dumpFile)
            let target = workspace.path("bad-\(UUID().uuidString).realm")
            let outcome = try workspace.run("load", dumpFile.path, target)
            #expect(!outcome.crashed && outcome.status == 1, "\(name): \(outcome.status) \(outcome.standardError)")
            #expect(outcome.standardError.hasPrefix("Error: "), "\(name)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(name) left a file")
        }
        let exists = try workspace.run("load", workspace.path("bad.jsonl"), path)
        #expect(exists.status == 1)
        #expect(exists.standardError.contains("exists"))
    }
}
