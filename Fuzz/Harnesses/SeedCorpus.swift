import Foundation
import RealmActors
import RealmObjectStore
import RealmStorage

/// Writes the seed corpora, `<directory>/Corpus/<target>/`, and the fixtures the harnesses need,
/// `<directory>/Fixtures/`: small inputs, each a valid example of what the target decodes, for
/// libFuzzer to start mutating from. `Scripts/fuzz.sh seeds` runs it (and adds the `load`
/// target's dump, which `realm-inspect dump` writes); the output is committed.
enum SeedCorpus {
    static func write(to directory: String) -> Bool {
        do {
            let scratch = ScratchDirectory("seeds")
            func corpus(_ target: String) throws -> String {
                let path = "\(directory)/Corpus/\(target)"
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
                return path
            }
            let fixtures = "\(directory)/Fixtures"
            try FileManager.default.createDirectory(atPath: fixtures, withIntermediateDirectories: true)

            // file: a realm with the schema and no objects, and one with objects of every kind.
            let files = try corpus("file")
            try withRealm(at: "\(scratch.path)/empty.realm") { _ in }
            try copy("\(scratch.path)/empty.realm", to: "\(files)/empty.realm")
            try withRealm(at: "\(scratch.path)/populated.realm") { try FuzzModels.populate($0) }
            try copy("\(scratch.path)/populated.realm", to: "\(files)/populated.realm")

            // log: the data file as a writable open leaves it, and its log after one and after
            // three commits (the log holds their records until a checkpoint).
            let logs = try corpus("log")
            let base = "\(scratch.path)/logged.realm"
            try withRealm(at: base) { realm in
                try copy(base, to: "\(fixtures)/log-base.realm")
                try FuzzModels.populate(realm)
                try put(trimmed(base + ".log"), at: "\(logs)/one-record.log")
                try realm.write { realm.objects(FuzzItem.self).first?.name = "changed" }
                try realm.write { realm.delete(realm.objects(FuzzPart.self)) }
                try put(trimmed(base + ".log"), at: "\(logs)/three-records.log")
            }

            // replication: a file with slots (valid, confirmed, invalidated) and change records
            // (inserts, updates, deletes, a class added), its values as seeds of each mode, and
            // the whole file among the `file` seeds.
            let replication = try corpus("replication")
            let replicated = "\(scratch.path)/replicated.realm"
            try withRealm(at: replicated) { try populateReplicated($0) }
            try copy(replicated, to: "\(fixtures)/replication-base.realm")
            try copy(replicated, to: "\(files)/replication.realm")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: replicated)))
            let regions = try ReplicationTarget.valueRegions(of: replicated, bytes: bytes)
            let slots = try withRealm(at: replicated) { try $0.replicationSlots.count }
            for (index, region) in regions.enumerated() {
                let mode: ReplicationTarget.Mode = index < slots ? .slot : .record
                try put(Data([mode.rawValue] + bytes[region]), at: "\(replication)/\(mode)-\(index)")
            }
            try put(Data([ReplicationTarget.Mode.file.rawValue] + regions.flatMap { bytes[$0] }), at: "\(replication)/file")

            // lockfile: no patch (plain and resealed), and one patch of each region: the header's
            // session, the publish counter, a published buffer's page count (resealed), a slot's
            // state and an exact pin.
            let lockFiles = try corpus("lockfile")
            for (name, seed) in LockFileTarget.seeds() { try put(Data(seed), at: "\(lockFiles)/\(name)") }

            // query: predicates of every kind of the Realm Query Language.
            let queries = try corpus("query")
            for (index, predicate) in predicates.enumerated() {
                try put(Data(predicate.utf8), at: "\(queries)/\(String(format: "%02d", index)).txt")
            }

            // values: a stored mixed value of each shape, the schema record, an object's JSON,
            // and text forms.
            let values = try corpus("values")
            let mixed: [(String, MixedValue)] = [
                ("mixed-int", .value(.int, .int(42))),
                ("mixed-string", .value(.string, .bytes(Array("text".utf8)))),
                ("mixed-link", .link(table: 3, key: 1)),
                ("mixed-list", .list([MixedValue.value(.double, .double(2.5)).stored, .null,
                                      MixedValue.list([MixedValue.value(.bool, .bool(true)).stored]).stored])),
                ("mixed-dictionary", .dictionary(PackedCollection.mapElements([("a", MixedValue.value(.int, .int(1)).stored),
                                                                               ("b", MixedValue.dictionary([]).stored)]))),
            ]
            for (name, value) in mixed {
                guard case .bytes(let bytes) = value.stored else { continue }
                try put(Data([ValueDecodingTarget.Decoder.storedMixed.rawValue] + bytes), at: "\(values)/\(name)")
            }
            if let schema = schemaRecord(in: try Data(contentsOf: URL(fileURLWithPath: "\(files)/populated.realm"))) {
                try put(Data([ValueDecodingTarget.Decoder.storedSchema.rawValue]) + schema, at: "\(values)/schema.json")
            }
            let object = #"{"id":7,"name":"jam","note":null,"flag":true,"count":2,"weight":1.25,"grams":0.5,"price":"12.50","#
                + #""created":0,"blob":"AAEC","code":"6565a6b5e4b0a1b2c3d4e5f6","uuid":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","#
                + #""tags":["x","y"],"scores":[3,1],"stock":{"a":1.5},"parts":[{"label":"lid","size":1}]}"#
            try put(Data([ValueDecodingTarget.Decoder.objectJSON.rawValue]) + Data(object.utf8), at: "\(values)/object.json")
            for (name, text) in [("decimal", "-1.2345E+6143"), ("objectid", "6565a6b5e4b0a1b2c3d4e5f6"), ("decimal-nan", "NaN")] {
                try put(Data([ValueDecodingTarget.Decoder.text.rawValue]) + Data(text.utf8), at: "\(values)/text-\(name)")
            }
            print("realm-fuzz: seeds written to \(directory)/Corpus and \(directory)/Fixtures")
            return true
        } catch {
            FileHandle.standardError.write(Data("realm-fuzz seeds: \(error)\n".utf8))
            return false
        }
    }

    static let predicates = [
        "name == 'milk'", "name BEGINSWITH[c] 'M' AND weight > 1.0", "count == nil OR count >= $0",
        "price < 10.5 && NOT flag", "tags.@count > 1", "ANY tags == 'a'", "scores.@max > 2 AND scores.@sum == 6",
        "stock['apples'] > 2", "stock.@keys == 'pears.ripe'", "parts.label CONTAINS 'ol'", "SUBQUERY(parts, $p, $p.size > 0).@count == 1",
        "created > 1970-01-01@00:00:01", "uuid == uuid(E621E1F8-C36C-495A-93FC-0C247A3E6E5F)", "code == oid(6565a6b5e4b0a1b2c3d4e5f6)",
        "blob == B64\"Zm9yaw==\"", "name IN {'milk', 'bread'}", "name LIKE '*il?' SORT(weight DESC) DISTINCT(name) LIMIT(2)",
        "favorite.name == $1", "items.@count > 2 AND label.text == 'red'", "anything == 7 OR anything.@type == 'string'",
        "mixedList[0] == 'x'", "mixedMap.one == 1", "ANY items.tags == 'b'", "items.@avg.weight > $2", "@links.@count > 0",
        "TRUEPREDICATE", "FALSEPREDICATE\nname", "weight BETWEEN {1, 2}\nweight", "!(size < 0) || label ==[c] 'BOLT'",
        "grams != NaN", "-weight > 3 - 1", "name MATCHES 'm.*'",
    ]

    /// Opens (creating) the realm file at `path` with the fuzz models, runs `body`, closes it.
    private static func withRealm<R>(at path: String, _ body: (Realm) throws -> R) throws -> R {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        configuration.objectTypes = FuzzModels.types
        return try body(try Realm(configuration: configuration))
    }

    /// The replication fixture: `populate`'s objects, then slots and commits for them to keep —
    /// `consumer` confirmed through the first of them, `behind` never, and `limited` with a
    /// one-page limit that the next commit passes (invalidated).
    private static func populateReplicated(_ realm: Realm) throws {
        try FuzzModels.populate(realm)
        try realm.write {
            try realm.createReplicationSlot(named: "consumer")
            try realm.createReplicationSlot(named: "behind", limits: Realm.ReplicationRetentionLimits(maximumLag: .seconds(86_400)))
        }
        try realm.write { realm.objects(FuzzItem.self).first?.name = "changed" }
        try realm.write {
            realm.create(FuzzItem.self, value: ["id": 9, "name": "new", "tags": ["n"]])
            realm.delete(realm.objects(FuzzPart.self).where { $0.size < 0 })
        }
        try realm.write {
            try realm.confirmReplicationSlot(named: "consumer", through: realm.fileStatistics.version - 1)
            try realm.createReplicationSlot(named: "limited", limits: Realm.ReplicationRetentionLimits(maximumRetainedBytes: 1))
        }
        try realm.write {
            for item in realm.objects(FuzzItem.self) { item.weight += 1 }
            realm.create(FuzzBox.self, value: ["name": "second"])
        }
    }

    private static func put(_ data: Data, at path: String) throws {
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// A log without the zeroed pages after its last record (it grows in 1 MiB steps): the same
    /// log to recovery, and a smaller input to mutate.
    private static func trimmed(_ path: String) throws -> Data {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let used = (bytes.lastIndex { $0 != 0 } ?? 0) + 1
        return Data(bytes.prefix((used + PageLayout.pageSize - 1) / PageLayout.pageSize * PageLayout.pageSize))
    }

    private static func copy(_ source: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    /// The schema record's JSON, found in the file's bytes: the balanced object around
    /// `"tables":[` (the record is stored as it is written, in one value).
    private static func schemaRecord(in file: Data) -> Data? {
        let bytes = [UInt8](file)
        let marker = Array(#""tables":["#.utf8)
        guard let hit = (0...(bytes.count - marker.count)).first(where: { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }),
              var start = bytes[..<hit].lastIndex(of: UInt8(ascii: "{")) else { return nil }
        // The record's first brace: the outermost one still open at the marker.
        var depth = 0, index = hit
        while index > 0 {
            index -= 1
            if bytes[index] == UInt8(ascii: "}") { depth += 1 }
            if bytes[index] == UInt8(ascii: "{") {
                if depth == 0 { start = index } else { depth -= 1 }
            }
            if bytes[index] < 0x20 { break }
        }
        depth = 0
        var inString = false, escaped = false
        for end in start..<bytes.count {
            let byte = bytes[end]
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return Data(bytes[start...end]) }
            default: break
            }
        }
        return nil
    }
}
