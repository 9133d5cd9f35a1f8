import Foundation
import Testing
import RealmActors
import RealmTestSupport

/// Migrations as a replication consumer reads them: each commit says what it changed in the
/// schema (`Commit.schemaChanges`), since a migration writes no change for most of what it does,
/// and the commits before a migration still read their objects with their own schema.
@Suite(.timeLimit(.minutes(2))) struct ReplicationSchemaTests {
    static func open(_ directory: TemporaryDirectory, version: UInt64, _ type: Object.Type,
                     migration: MigrationBlock? = nil) throws -> Realm {
        var configuration = Realm.Configuration(fileURL: directory.url.appendingPathComponent("schema.realm"))
        configuration.schemaVersion = version
        configuration.objectTypes = [type]
        configuration.migrationBlock = migration
        return try Realm(configuration: configuration)
    }

    /// The commits after the slot's position, read until none is left.
    static func commits(_ realm: Realm) async throws -> [Realm.Commit] {
        var iterator = realm.commits(since: "sink").makeAsyncIterator()
        var commits: [Realm.Commit] = []
        while try realm.replicationBacklog(after: commits.last?.version ?? realm.replicationSlots[0].confirmedVersion).commits > 0 {
            commits.append(try #require(try await iterator.next()))
        }
        return commits
    }

    @Test func migrationsTellTheirSchemaChanges() async throws {
        let directory = try TemporaryDirectory()
        do {
            let realm = try Self.open(directory, version: 1, MPersonV1.self)
            try realm.write { try realm.createReplicationSlot(named: "sink") }
            try realm.write { realm.add(MPersonV1(value: ["firstName": "Ada", "lastName": "Lovelace", "age": 36])) }
        }
        // Added: `email`. The object written before the migration still reads with its schema.
        do {
            let realm = try Self.open(directory, version: 2, MPersonEmail.self)
            let commits = try await Self.commits(realm)
            #expect(commits.count == 2)
            #expect(commits[0].schemaChanges == [])
            #expect(commits[0].changes.first?.inserted.first?.object.read { $0["age"] as? Int } == 36)
            #expect(commits[1].schemaChanges == [.propertyAdded(className: "MPerson", property: "email")])
            #expect(commits[1].changes.isEmpty)
            try realm.write { try realm.confirmReplicationSlot(named: "sink", through: commits[1].version) }
        }
        // Renamed `age` to `yearsSinceBirth`, removed `email`.
        do {
            let realm = try Self.open(directory, version: 3, MPersonRenamed.self) { migration, _ in
                migration.renameProperty(onType: "MPerson", from: "age", to: "yearsSinceBirth")
            }
            let commits = try await Self.commits(realm)
            #expect(commits.count == 1)
            #expect(Set(commits[0].schemaChanges) == [.propertyRenamed(className: "MPerson", from: "age", to: "yearsSinceBirth"),
                                                      .propertyRemoved(className: "MPerson", property: "email")])
            try realm.write { try realm.confirmReplicationSlot(named: "sink", through: commits[0].version) }
        }
        // A type change: `age` as a string, filled by the migration block (its writes are the
        // commit's modifications).
        do {
            let realm = try Self.open(directory, version: 4, MPersonV3.self) { migration, _ in
                migration.enumerateObjects(ofType: "MPerson") { old, new in
                    new!["fullName"] = "\(old!["firstName"] as! String) \(old!["lastName"] as! String)"
                    new!["age"] = "\(old!["yearsSinceBirth"] as! Int)"
                }
            }
            let commits = try await Self.commits(realm)
            #expect(commits.count == 1)
            #expect(Set(commits[0].schemaChanges) == [.propertyRemoved(className: "MPerson", property: "firstName"),
                                                      .propertyRemoved(className: "MPerson", property: "lastName"),
                                                      .propertyRemoved(className: "MPerson", property: "yearsSinceBirth"),
                                                      .propertyAdded(className: "MPerson", property: "fullName"),
                                                      .propertyAdded(className: "MPerson", property: "age")])
            let modified = try #require(commits[0].changes.first?.modified.first)
            #expect(Set(modified.changedProperties) == ["fullName", "age"])
            #expect(modified.object.read { $0["age"] as? String } == "36")
            try realm.write { try realm.confirmReplicationSlot(named: "sink", through: commits[0].version) }
        }
        // A type change back: `age` an integer again, the rest replaced.
        do {
            let realm = try Self.open(directory, version: 5, MPersonRequiredAge.self) { migration, _ in
                migration.enumerateObjects(ofType: "MPerson") { old, new in
                    new!["age"] = Int(old!["age"] as! String)!
                }
            }
            let commits = try await Self.commits(realm)
            #expect(commits.count == 1)
            #expect(Set(commits[0].schemaChanges) == [.propertyRemoved(className: "MPerson", property: "fullName"),
                                                      .propertyAdded(className: "MPerson", property: "firstName"),
                                                      .propertyAdded(className: "MPerson", property: "lastName"),
                                                      .propertyAdded(className: "MPerson", property: "nickname"),
                                                      .propertyTypeChanged(className: "MPerson", property: "age")])
            #expect(commits[0].changes.first?.modified.first?.object.read { $0["age"] as? Int } == 36)
            try realm.write { try realm.confirmReplicationSlot(named: "sink", through: commits[0].version) }
        }
        // A primary key added: no column change expresses it.
        do {
            let realm = try Self.open(directory, version: 6, MPersonKeyedByName.self) { migration, _ in
                migration.enumerateObjects(ofType: "MPerson") { _, new in new!["firstName"] = "Ada" }
            }
            let commits = try await Self.commits(realm)
            #expect(commits.count == 1)
            #expect(commits[0].schemaChanges == [.classRestructured("MPerson")])
        }
    }
}
