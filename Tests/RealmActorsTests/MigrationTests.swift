import Foundation
import Testing
import RealmActors
import RealmRuntime  // `Lock`, the package's lock (a pthread mutex TSan sees in a sanitizer build)
import RealmTestSupport

// Each version of a model is its own Swift class stored under one class name (`className()`),
// as a program's `Person` is across releases. The names are unique to this file, so parallel
// tests of other suites never share them.

/// The guide's first version: separate names and an `Int` age.
final class MPersonV1: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
}

/// The guide's automatic migration: an optional `email` added.
final class MPersonEmail: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var email: String?
    @Persisted var age = 0
}

/// The guide's version 2: one combined name.
final class MPersonV2: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var fullName = ""
    @Persisted var age = 0
}

/// The guide's version 3: the age as a `String`.
final class MPersonV3: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var fullName = ""
    @Persisted var age = "0"
}

/// The guide's rename: `age` becomes an indexed `yearsSinceBirth`.
final class MPersonRenamed: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted(indexed: true) var yearsSinceBirth = 0
}

/// `age` optional, and a new required `nickname`.
final class MPersonOptionalAge: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age: Int?
    @Persisted var nickname = ""
}

/// `age` required again.
final class MPersonRequiredAge: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age = 0
    @Persisted var nickname = ""
}

/// `age` as an integer primary key.
final class MPersonKeyedByAge: Object {
    override class func className() -> String { "MPerson" }
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted(primaryKey: true) var age = 0
}

/// `firstName` as a string primary key, `age` indexed.
final class MPersonKeyedByName: Object {
    override class func className() -> String { "MPerson" }
    @Persisted(primaryKey: true) var firstName = ""
    @Persisted var lastName = ""
    @Persisted(indexed: true) var age = 0
}

/// An address, first a top-level class, then embedded.
final class MAddressV1: Object {
    override class func className() -> String { "MAddress" }
    @Persisted var street = ""
}

final class MAddressV2: EmbeddedObject {
    override class func className() -> String { "MAddress" }
    @Persisted var street = ""
}

final class MOwnerV1: Object {
    override class func className() -> String { "MOwner" }
    @Persisted var name = ""
    @Persisted var address: MAddressV1?
}

final class MOwnerV2: Object {
    override class func className() -> String { "MOwner" }
    @Persisted var name = ""
    @Persisted var address: MAddressV2?
}

/// A team linking to people, before and after `MPerson` gets an integer primary key.
final class MTeamV1: Object {
    override class func className() -> String { "MTeam" }
    @Persisted var captain: MPersonV1?
    @Persisted var members: List<MPersonV1>
}

final class MTeamV2: Object {
    override class func className() -> String { "MTeam" }
    @Persisted var captain: MPersonKeyedByAge?
    @Persisted var members: List<MPersonKeyedByAge>
}

/// A class added by a migration.
final class MPet: Object {
    override class func className() -> String { "MPet" }
    @Persisted var name = ""
}

/// Counts calls of a `@Sendable` migration block.
final class CallLog: Sendable {
    private let calls = Lock<[UInt64]>([])
    func record(_ version: UInt64) { calls.withLock { $0.append(version) } }
    var versions: [UInt64] { calls.withLock { $0 } }
}

@Suite struct MigrationTests {
    /// A file at `version` holding the people (first, last, age) as `MPersonV1`.
    private func makeV1File(_ directory: TemporaryDirectory, version: UInt64 = 1,
                            people: [(String, String, Int)] = [("Ada", "Lovelace", 36), ("Alan", "Turing", 41)]) throws -> Realm.Configuration {
        var config = fileConfiguration(directory)
        config.schemaVersion = version
        config.objectTypes = [MPersonV1.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            for (first, last, age) in people { realm.add(MPersonV1(value: ["firstName": first, "lastName": last, "age": age])) }
        }
        return config
    }

    /// The guide's combined-name and age-to-string block, for any old version.
    private static let guideBlock: MigrationBlock = { migration, oldSchemaVersion in
        if oldSchemaVersion < 2 {
            migration.enumerateObjects(ofType: MPersonV1.className()) { oldObject, newObject in
                let firstName = oldObject!["firstName"] as? String
                let lastName = oldObject!["lastName"] as? String
                newObject!["fullName"] = "\(firstName!) \(lastName!)"
            }
        }
        if oldSchemaVersion < 3 {
            migration.enumerateObjects(ofType: MPersonV1.className()) { oldObject, newObject in
                newObject!["age"] = "\(oldObject!["age"] ?? 0)"
            }
        }
    }

    /// An encrypted realm migrates with its key, stays encrypted, and a wrong key cannot even
    /// read its schema version (Realm's encryption tests migrate with a key too).
    @Test func anEncryptedRealmMigratesWithItsKey() throws {
        let directory = try TemporaryDirectory()
        let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ 1) })
        var config = fileConfiguration(directory)
        config.encryptionKey = key
        config.schemaVersion = 1
        config.objectTypes = [MPersonV1.self]
        do {
            let realm = try Realm(configuration: config)
            try realm.write { realm.add(MPersonV1(value: ["firstName": "Ada", "lastName": "Lovelace", "age": 36])) }
        }
        config.objectTypes = [MPersonV3.self]
        config.schemaVersion = 3
        config.migrationBlock = Self.guideBlock
        let realm = try Realm(configuration: config)
        #expect(realm.objects(MPersonV3.self).map(\.fullName) == ["Ada Lovelace"])
        #expect(realm.objects(MPersonV3.self).first?.age == "36")
        #expect(try schemaVersionAtURL(config.fileURL!, encryptionKey: key) == 3)
        let contents = try Data(contentsOf: config.fileURL!)
        #expect(contents.range(of: Data("Lovelace".utf8)) == nil)
    }

    @Test func addingAnOptionalPropertyNeedsOnlyAHigherVersion() throws {
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory)
        config.objectTypes = [MPersonEmail.self]
        config.schemaVersion = 2
        let realm = try Realm(configuration: config)
        let people = realm.objects(MPersonEmail.self).sorted(byKeyPath: "age")
        #expect(people.map(\.firstName) == ["Ada", "Alan"])
        #expect(people.allSatisfy { $0.email == nil })
        #expect(try schemaVersionAtURL(config.fileURL!) == 2)
    }

    @Test func sameVersionWithADifferentSchemaIsAMismatchAndLowerVersionsFail() throws {
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory, version: 2)
        config.objectTypes = [MPersonV2.self]
        let calls = CallLog()
        config.migrationBlock = { _, old in calls.record(old) }
        do {
            _ = try Realm(configuration: config)
            Issue.record("expected schemaMismatch")
        } catch let error as Realm.Error {
            #expect(error.code == .schemaMismatch)
            #expect(error.message.contains("Property 'MPerson.fullName' has been added."))
            #expect(error.message.contains("Property 'MPerson.firstName' has been removed."))
        }
        config.schemaVersion = 1
        #expect(throws: Realm.Error.self) { _ = try Realm(configuration: config) }
        // The same version and schema: the block does not run.
        config.schemaVersion = 2
        config.objectTypes = [MPersonV1.self]
        _ = try Realm(configuration: config)
        #expect(calls.versions.isEmpty)
    }

    @Test func guideCombinesNamesAndChangesTheAgeTypeFromAnyOldVersion() throws {
        // From version 1: both steps run, in one call of the block.
        let v1 = try TemporaryDirectory()
        var config = try makeV1File(v1)
        let calls = CallLog()
        config.objectTypes = [MPersonV3.self]
        config.schemaVersion = 3
        config.migrationBlock = { migration, old in
            calls.record(old)
            Self.guideBlock(migration, old)
        }
        let realm = try Realm(configuration: config)
        #expect(calls.versions == [1])
        let people = realm.objects(MPersonV3.self).sorted(byKeyPath: "fullName")
        #expect(people.map(\.fullName) == ["Ada Lovelace", "Alan Turing"])
        #expect(people.map(\.age) == ["36", "41"])
        #expect(realm.schema["MPerson"]?["age"]?.type == .string)
        #expect(realm.schema["MPerson"]?["firstName"] == nil)

        // From version 2 (fullName already there): only the age changes.
        let v2 = try TemporaryDirectory()
        var v2Config = fileConfiguration(v2)
        v2Config.schemaVersion = 2
        v2Config.objectTypes = [MPersonV2.self]
        do {
            let old = try Realm(configuration: v2Config)
            try old.write { old.add(MPersonV2(value: ["fullName": "Grace Hopper", "age": 85])) }
        }
        v2Config.objectTypes = [MPersonV3.self]
        v2Config.schemaVersion = 3
        v2Config.migrationBlock = Self.guideBlock
        let migrated = try Realm(configuration: v2Config)
        #expect(migrated.objects(MPersonV3.self).map { "\($0.fullName) \($0.age)" } == ["Grace Hopper 85"])
    }

    @Test func aBlockWithoutObjectTypesFailsClearlyAndChangesNothing() throws {
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory)
        config.objectTypes = nil
        config.schemaVersion = 2
        config.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MPerson") { _, newObject in newObject!["age"] = 1 }
        }
        #expect {
            _ = try Realm(configuration: config)
        } throws: { ($0 as? Realm.Error)?.message.contains("list them in `objectTypes`") == true }
        #expect(try schemaVersionAtURL(config.fileURL!) == 1)
        // deleteRealmIfMigrationNeeded empties the file instead.
        config.deleteRealmIfMigrationNeeded = true
        #expect(try Realm(configuration: config).objects(MPersonV1.self).isEmpty)
        #expect(try schemaVersionAtURL(config.fileURL!) == 2)
    }

    @Test func renameKeepsDataAndAppliesTheNewIndex() throws {
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory)
        config.objectTypes = [MPersonRenamed.self]
        config.schemaVersion = 2
        config.migrationBlock = { migration, oldSchemaVersion in
            if oldSchemaVersion < 2 {
                migration.renameProperty(onType: MPersonRenamed.className(), from: "age", to: "yearsSinceBirth")
            }
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(MPersonRenamed.self).sorted(byKeyPath: "firstName").map(\.yearsSinceBirth) == [36, 41])
        #expect(realm.schema["MPerson"]?["yearsSinceBirth"]?.isIndexed == true)
        #expect(realm.objects(MPersonRenamed.self).where { $0.yearsSinceBirth == 41 }.first?.firstName == "Alan")
        try realm.write { realm.objects(MPersonRenamed.self).first!.yearsSinceBirth = 50 }
        #expect(realm.objects(MPersonRenamed.self).where { $0.yearsSinceBirth == 50 }.count == 1)
    }

    @Test func failedOperationsFailTheOpenAndLeaveTheFileAsItWas() throws {
        let cases: [(String, MigrationBlock)] = [
            ("because the destination property already exists", { migration, _ in
                migration.renameProperty(onType: "MPerson", from: "age", to: "firstName")
            }),
            ("Cannot rename properties for type 'Nobody' because it does not exist.", { migration, _ in
                migration.renameProperty(onType: "Nobody", from: "age", to: "yearsSinceBirth")
            }),
            ("Cannot rename property 'MPerson.missing' because it does not exist.", { migration, _ in
                migration.renameProperty(onType: "MPerson", from: "missing", to: "yearsSinceBirth")
            }),
            ("Cannot enumerate objects of type 'Nobody'", { migration, _ in
                // Writes first: nothing of them may survive the failure.
                migration.enumerateObjects(ofType: "MPerson") { _, newObject in newObject!["firstName"] = "changed" }
                migration.enumerateObjects(ofType: "Nobody") { _, _ in }
            }),
        ]
        for (message, block) in cases {
            let directory = try TemporaryDirectory()
            var config = try makeV1File(directory)
            var next = config
            next.objectTypes = [MPersonRenamed.self]
            next.schemaVersion = 2
            next.migrationBlock = block
            do {
                _ = try Realm(configuration: next)
                Issue.record("expected the migration to fail: \(message)")
            } catch let error as Realm.Error {
                #expect(error.message.contains(message))
            }
            #expect(try schemaVersionAtURL(config.fileURL!) == 1)
            config.migrationBlock = nil
            let realm = try Realm(configuration: config)
            #expect(realm.objects(MPersonV1.self).sorted(byKeyPath: "age").map { "\($0.firstName) \($0.age)" } == ["Ada 36", "Alan 41"])
        }
    }

    @Test func addedRequiredPropertyAndOptionalityChangesKeepValues() throws {
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory)
        config.objectTypes = [MPersonOptionalAge.self]
        config.schemaVersion = 2
        config.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MPerson") { oldObject, newObject in
                newObject!["nickname"] = String((oldObject!["firstName"] as! String).prefix(2))
            }
        }
        do {
            let realm = try Realm(configuration: config)
            let people = realm.objects(MPersonOptionalAge.self).sorted(byKeyPath: "firstName")
            #expect(people.map(\.age) == [36, 41])
            #expect(people.map(\.nickname) == ["Ad", "Al"])
            try realm.write { people.first!.age = nil }
        }
        // Optional to required: the values stay, a nil becomes 0.
        config.objectTypes = [MPersonRequiredAge.self]
        config.schemaVersion = 3
        config.migrationBlock = nil
        let realm = try Realm(configuration: config)
        #expect(realm.objects(MPersonRequiredAge.self).sorted(byKeyPath: "firstName").map(\.age) == [0, 41])
        #expect(realm.schema["MPerson"]?["age"]?.isOptional == false)
    }

    @Test func addingAPrimaryKeyWorksUnlessValuesRepeat() throws {
        // An integer key: the objects are found by it afterwards.
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory)
        config.objectTypes = [MPersonKeyedByAge.self]
        config.schemaVersion = 2
        do {
            let realm = try Realm(configuration: config)
            #expect(realm.object(ofType: MPersonKeyedByAge.self, forPrimaryKey: 41)?.firstName == "Alan")
            try realm.write { realm.add(MPersonKeyedByAge(value: ["firstName": "Linus", "age": 7])) }
            #expect(realm.object(ofType: MPersonKeyedByAge.self, forPrimaryKey: 7)?.firstName == "Linus")
        }
        // A string key, and an index added.
        let named = try TemporaryDirectory()
        var namedConfig = try makeV1File(named)
        namedConfig.objectTypes = [MPersonKeyedByName.self]
        namedConfig.schemaVersion = 2
        let realm = try Realm(configuration: namedConfig)
        #expect(realm.object(ofType: MPersonKeyedByName.self, forPrimaryKey: "Ada")?.age == 36)
        #expect(realm.objects(MPersonKeyedByName.self).where { $0.age == 41 }.first?.firstName == "Alan")

        // Removing the key and the index: the data stays, and names may repeat.
        var unkeyed = namedConfig
        unkeyed.objectTypes = [MPersonV1.self]
        unkeyed.schemaVersion = 3
        do {
            let plain = try Realm(configuration: unkeyed)
            #expect(plain.schema["MPerson"]?.primaryKeyProperty == nil)
            #expect(plain.schema["MPerson"]?["age"]?.isIndexed == false)
            try plain.write { plain.add(MPersonV1(value: ["firstName": "Ada", "age": 41])) }
            #expect(plain.objects(MPersonV1.self).where { $0.age == 41 }.map(\.firstName).sorted() == ["Ada", "Alan"])
        }

        // Duplicates fail, for either kind of key, and leave the file at its old version.
        for (types, people) in [([MPersonKeyedByAge.self], [("A", "X", 5), ("B", "Y", 5)]),
                                ([MPersonKeyedByName.self], [("A", "X", 5), ("A", "Y", 6)])] as [([ObjectBase.Type], [(String, String, Int)])] {
            let duplicates = try TemporaryDirectory()
            var next = try makeV1File(duplicates, people: people)
            next.objectTypes = types
            next.schemaVersion = 2
            do {
                _ = try Realm(configuration: next)
                Issue.record("expected duplicate values to fail")
            } catch let error as Realm.Error {
                #expect(error.message.contains("has duplicate values after migration"))
            }
            #expect(try schemaVersionAtURL(next.fileURL!) == 1)
        }
    }

    @Test func linksFollowObjectsMovedByANewIntegerPrimaryKey() throws {
        let directory = try TemporaryDirectory()
        var config = fileConfiguration(directory)
        config.objectTypes = [MTeamV1.self, MPersonV1.self]
        do {
            let realm = try Realm(configuration: config)
            try realm.write {
                let people = [("Ada", 36), ("Alan", 41), ("Grace", 85)].map {
                    realm.create(MPersonV1.self, value: ["firstName": $0.0, "age": $0.1])
                }
                realm.create(MTeamV1.self, value: ["captain": people[1], "members": [people[2], people[0], people[1]]])
            }
        }
        config.objectTypes = [MTeamV2.self, MPersonKeyedByAge.self]
        config.schemaVersion = 1
        let realm = try Realm(configuration: config)
        let team = try #require(realm.objects(MTeamV2.self).first)
        #expect(team.captain?.firstName == "Alan")
        #expect(team.members.map(\.firstName) == ["Grace", "Ada", "Alan"])
        #expect(realm.object(ofType: MPersonKeyedByAge.self, forPrimaryKey: 85)?.firstName == "Grace")
        // Backlinks (the link indexes) follow too: deleting a person unlinks it.
        try realm.write { realm.delete(realm.object(ofType: MPersonKeyedByAge.self, forPrimaryKey: 41)!) }
        #expect(team.captain == nil)
        #expect(team.members.map(\.firstName) == ["Grace", "Ada"])
    }

    @Test func createDeleteAndDeleteDataInTheBlock() throws {
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory, people: [("Ada", "L", 36), ("Alan", "T", 41), ("Old", "X", 99)])
        config.objectTypes = [MPersonV1.self, MPet.self]
        config.schemaVersion = 2
        config.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "MPerson") { oldObject, newObject in
                if oldObject!["age"] as? Int == 99 {
                    migration.delete(newObject!)
                } else {
                    migration.create("MPet", value: ["name": "pet of \(oldObject!["firstName"]!)"])
                }
            }
            // A new class: enumerated with no old object.
            var seen = 0
            migration.enumerateObjects(ofType: "MPet") { oldObject, newObject in
                #expect(oldObject == nil && newObject != nil)
                seen += 1
            }
            #expect(seen == 2)
        }
        do {
            let realm = try Realm(configuration: config)
            #expect(realm.objects(MPersonV1.self).map(\.firstName).sorted() == ["Ada", "Alan"])
            #expect(realm.objects(MPet.self).map(\.name).sorted() == ["pet of Ada", "pet of Alan"])
        }
        config.schemaVersion = 3
        config.migrationBlock = { migration, _ in
            #expect(migration.deleteData(forType: "MPet"))
            #expect(!migration.deleteData(forType: "Nobody"))
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(MPet.self).isEmpty)
        #expect(realm.objects(MPersonV1.self).count == 2)
    }

    /// A file with owners and addresses as top-level objects: `links[i]` is the address index
    /// owner `i` links to.
    private func makeAddressFile(_ directory: TemporaryDirectory, addresses: Int, links: [Int]) throws -> Realm.Configuration {
        var config = fileConfiguration(directory)
        config.objectTypes = [MOwnerV1.self, MAddressV1.self]
        let realm = try Realm(configuration: config)
        try realm.write {
            let made = (0..<addresses).map { realm.create(MAddressV1.self, value: ["street": "street \($0)"]) }
            for (owner, address) in links.enumerated() {
                realm.create(MOwnerV1.self, value: ["name": "owner \(owner)", "address": made[address]])
            }
        }
        return config
    }

    @Test func convertingToEmbeddedNeedsExactlyOneParentPerObject() throws {
        let cases: [(addresses: Int, links: [Int], error: String?)] = [
            (2, [0, 1], nil),
            (2, [0], "At least one object does not have a backlink (data would get lost)."),
            (1, [0, 0], "At least one object does have multiple backlinks."),
        ]
        for (addresses, links, expected) in cases {
            let directory = try TemporaryDirectory()
            var config = try makeAddressFile(directory, addresses: addresses, links: links)
            var next = config
            next.objectTypes = [MOwnerV2.self, MAddressV2.self]
            next.schemaVersion = 1
            do {
                let realm = try Realm(configuration: next)
                #expect(expected == nil)
                #expect(realm.objects(MOwnerV2.self).sorted(byKeyPath: "name").map { $0.address?.street } == ["street 0", "street 1"])
                #expect(realm.schema["MAddress"]?.isEmbedded == true)
            } catch let error as Realm.Error {
                #expect(error.message == expected)
                #expect(try schemaVersionAtURL(config.fileURL!) == 0)
                config.migrationBlock = nil
                let realm = try Realm(configuration: config)
                #expect(realm.objects(MAddressV1.self).count == addresses)
            }
        }
        // The block can fix the data: give an orphan a parent.
        let directory = try TemporaryDirectory()
        var config = try makeAddressFile(directory, addresses: 2, links: [0])
        config.objectTypes = [MOwnerV2.self, MAddressV2.self]
        config.schemaVersion = 1
        config.migrationBlock = { migration, _ in
            var orphan: MigrationObject?
            migration.enumerateObjects(ofType: "MAddress") { oldObject, newObject in
                if oldObject!["street"] as? String == "street 1" { orphan = newObject }
            }
            migration.create("MOwner", value: ["name": "owner 1", "address": orphan!])
        }
        let realm = try Realm(configuration: config)
        #expect(realm.objects(MOwnerV2.self).count == 2)
    }

    @Test func deleteRealmIfMigrationNeededEmptiesOnlyWhenNeeded() throws {
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory)
        config.deleteRealmIfMigrationNeeded = true
        let calls = CallLog()
        config.migrationBlock = { _, old in calls.record(old) }
        // No migration needed: the data stays.
        #expect(try Realm(configuration: config).objects(MPersonV1.self).count == 2)
        config.objectTypes = [MPersonV3.self]
        config.schemaVersion = 3
        let realm = try Realm(configuration: config)
        #expect(realm.objects(MPersonV3.self).isEmpty)
        #expect(calls.versions.isEmpty)
        #expect(try schemaVersionAtURL(config.fileURL!) == 3)
    }

    @Test func performMigrationAndSchemaVersionAtURL() throws {
        let directory = try TemporaryDirectory()
        #expect {
            _ = try schemaVersionAtURL(directory.url.appendingPathComponent("missing.realm"))
        } throws: { ($0 as? Realm.Error)?.code == .fileNotFound }
        var config = try makeV1File(directory)
        config.objectTypes = [MPersonV3.self]
        config.schemaVersion = 3
        config.migrationBlock = Self.guideBlock
        try Realm.performMigration(for: config)
        #expect(try schemaVersionAtURL(config.fileURL!) == 3)
        #expect(try Realm(configuration: config).objects(MPersonV3.self).map(\.age).sorted() == ["36", "41"])
    }

    @Test func asyncOpenMigratesAndReportsProgress() async throws {
        let directory = try TemporaryDirectory()
        var config = try makeV1File(directory, people: (0..<250).map { ("p\($0)", "x", $0) })
        config.objectTypes = [MPersonV3.self]
        config.schemaVersion = 3
        let reports = CallLog()
        config.migrationBlock = { migration, old in
            migration.progressInterval = 100
            migration.progressHandler = { _, done, total in
                #expect(total == 250)
                reports.record(UInt64(done))
            }
            Self.guideBlock(migration, old)
        }
        let realm = try await Realm.open(configuration: config)
        #expect(realm.objects(MPersonV3.self).where { $0.age == "249" }.first?.fullName == "p249 x")
        #expect(reports.versions == [100, 200, 250, 100, 200, 250])
    }
}
