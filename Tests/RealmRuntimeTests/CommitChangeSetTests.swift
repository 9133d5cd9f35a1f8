import Foundation
import Testing
@testable import RealmRuntime
import RealmTestSupport

/// ``CommitChangeSet`` below the API: commits made through the write pipeline of a file with a
/// replication slot, read back from their change records as a consumer reads them — per class,
/// in table order, the keys inserted, modified (with the properties written, in column order) and
/// deleted, net of what the commit undid itself; embedded objects as their owners' modifications;
/// dropped classes as `deletedAll`; the two versions pinned.
@Suite struct CommitChangeSetTests {
    /// Person(name, age, address → embedded Address(street, geo → embedded Geo(latitude)),
    /// dog → Dog(name)).
    static let classes = [
        ObjectSchemaInfo(className: "Person", properties: [
            PropertyInfo(name: "name", kind: .string), PropertyInfo(name: "age", kind: .int),
            PropertyInfo(name: "address", kind: .object, isOptional: true, objectClassName: "Address"),
            PropertyInfo(name: "dog", kind: .object, isOptional: true, objectClassName: "Dog"),
        ]),
        ObjectSchemaInfo(className: "Address", properties: [
            PropertyInfo(name: "street", kind: .string),
            PropertyInfo(name: "geo", kind: .object, isOptional: true, objectClassName: "Geo"),
        ], isEmbedded: true),
        ObjectSchemaInfo(className: "Geo", properties: [PropertyInfo(name: "latitude", kind: .double)], isEmbedded: true),
        ObjectSchemaInfo(className: "Dog", properties: [PropertyInfo(name: "name", kind: .string)]),
    ]
    static let personProperties = ["name", "age", "address", "dog"]

    /// One class's changes in a comparable form.
    struct Changes: Equatable, CustomStringConvertible {
        var deletedAll = false
        var inserted: [UInt64] = []
        var modified: [Modified] = []
        var deleted: [UInt64] = []

        struct Modified: Equatable {
            var key: UInt64
            var properties: [String]
        }

        init(deletedAll: Bool = false, inserted: [UInt64] = [], modified: [(UInt64, [String])] = [], deleted: [UInt64] = []) {
            self.deletedAll = deletedAll
            self.inserted = inserted
            self.modified = modified.map { Modified(key: $0.0, properties: $0.1) }
            self.deleted = deleted
        }

        init(_ changes: CommitChangeSet.ClassChanges) {
            self.init(deletedAll: changes.deletedAll, inserted: changes.inserted,
                      modified: changes.modified.map { ($0.key, $0.properties) }, deleted: changes.deleted)
        }

        var description: String {
            "deletedAll \(deletedAll), inserted \(inserted), modified \(modified.map { "\($0.key): \($0.properties)" }), deleted \(deleted)"
        }
    }

    /// The classes of `changeSet`, in its order.
    static func classes(of changeSet: CommitChangeSet) -> [(String, Changes)] {
        changeSet.classes.map { ($0.className, Changes($0)) }
    }

    /// A file with the classes above and a replication slot: its position (the version the
    /// slot was created on), and the commit that created it (which, editing no table, has no
    /// change record: the first commit read is built on it).
    static func file(_ classes: [ObjectSchemaInfo] = Self.classes) async throws
        -> (realm: TestRealmFile, slotPosition: TransactionID, slotCommit: TransactionID) {
        let realm = try await TestRealmFile(classes)
        let (commit, slot) = try await realm.write { try $0.transaction.createReplicationSlot(named: "test") }
        return (realm, slot.confirmed, commit.transaction)
    }

    /// Whether object `key` of `className` exists at `version`.
    static func exists(_ key: UInt64, _ className: String, at version: FrozenVersion) throws -> Bool {
        guard let table = version.catalog.tables[className] else { return false }
        return try version.reader.row(in: version.reader.root(of: table.tree), key: key) != nil
    }

    @Test func insertsModificationsAndDeletionsArePerClassInTableOrder() async throws {
        let (realm, position, _) = try await Self.file()
        let setup = try await realm.write { writer in
            let dogs = try (0..<2).map { try writer.insert("Dog", ["name": .text("dog \($0)")]) }
            for index in 0..<3 {
                try writer.insert("Person", ["name": .text("person \(index)"), "age": .int(Int64(index)),
                                             "dog": index == 1 ? .int(Int64(dogs[1])) : .null])
            }
        }.commit
        let start = Date()
        let commit = try await realm.write { writer in
            try writer.insert("Person", ["name": .text("new")])
            try writer.set("age", of: 0, in: "Person", to: .int(40))
            try writer.set("age", of: 1, in: "Person", to: .int(41))  // written after `age`, reported in column order
            try writer.set("name", of: 1, in: "Person", to: .text("renamed"))
            try writer.delete(2, from: "Person")
            try writer.set("name", of: 0, in: "Dog", to: .text("renamed dog"))
            try writer.delete(1, from: "Dog")  // unlinks person 1's dog: a write of that property
        }.commit
        let end = Date()

        let changeSets = try CommitChangeSet.commits(of: realm.file, after: setup.transaction, limit: 10)
        try #require(changeSets.count == 1)
        let changeSet = changeSets[0]
        #expect(changeSet.version.transaction == commit.transaction && changeSet.base.transaction == setup.transaction)
        #expect(changeSet.commitTime >= start.addingTimeInterval(-0.001) && changeSet.commitTime <= end.addingTimeInterval(0.001),
                "commit time \(changeSet.commitTime) within the write, \(start)...\(end)")
        let classes = Self.classes(of: changeSet)
        #expect(classes.map(\.0) == ["Person", "Dog"], "the classes in table order")
        #expect(classes.first?.1 == Changes(inserted: [3], modified: [(0, ["age"]), (1, ["name", "age", "dog"])], deleted: [2]))
        #expect(classes.last?.1 == Changes(modified: [(0, ["name"])], deleted: [1]))
        // Deleted objects are read at the base version; inserted ones at the new one.
        #expect(try Self.exists(2, "Person", at: changeSet.base) && !Self.exists(2, "Person", at: changeSet.version))
        #expect(try !Self.exists(3, "Person", at: changeSet.base) && Self.exists(3, "Person", at: changeSet.version))
        // The slot's position reads the setup commit first.
        #expect(try CommitChangeSet.commits(of: realm.file, after: position, limit: 10).map(\.version.transaction)
                == [setup.transaction, commit.transaction])
    }

    @Test func whatACommitUndidItselfIsNotReported() async throws {
        let (realm, _, _) = try await Self.file()
        let setup = try await realm.write { writer in
            for index in 0..<3 { try writer.insert("Person", ["name": .text("person \(index)")]) }
        }.commit
        try await realm.write { writer in
            try writer.set("age", of: 0, in: "Person", to: .int(1))
            try writer.delete(0, from: "Person")  // modified, then deleted: deleted
            try writer.delete(2, from: "Person")
            #expect(try writer.insert("Person", ["name": .text("again")]) == 2)  // deleted, inserted again: every property
            #expect(try writer.insert("Person") == 3)
            try writer.set("name", of: 3, in: "Person", to: .text("new"))  // inserted, then written: inserted
            let dog = try writer.insert("Dog")
            try writer.delete(dog, from: "Dog")  // inserted, then deleted: nothing
        }
        let changeSet = try #require(try CommitChangeSet.commits(of: realm.file, after: setup.transaction, limit: 10).first)
        let classes = Self.classes(of: changeSet)
        #expect(classes.map(\.0) == ["Person"], "a class whose only object came and went is not listed")
        #expect(classes.first?.1 == Changes(inserted: [3], modified: [(2, Self.personProperties)], deleted: [0]))
    }

    @Test func anEmbeddedObjectsChangeIsItsTopLevelOwnersModification() async throws {
        let (realm, _, _) = try await Self.file()
        let setup = try await realm.write { writer in
            let geo = try writer.insert("Geo", ["latitude": .double(1)])
            let address = try writer.insert("Address", ["street": .text("Main"), "geo": .int(Int64(geo))])
            try writer.insert("Person", ["name": .text("owner"), "address": .int(Int64(address))])
            try writer.insert("Person", ["name": .text("bystander")])
        }.commit
        // Two levels down, then one.
        let deep = try await realm.write { try $0.set("latitude", of: 0, in: "Geo", to: .double(2)) }.commit
        let shallow = try await realm.write { try $0.set("street", of: 0, in: "Address", to: .text("High")) }.commit
        // An owner inserted with its embedded object; an embedded object replaced (the old one
        // deleted with it); an owner deleted with its embedded objects.
        let inserted = try await realm.write { writer in
            let address = try writer.insert("Address", ["street": .text("New")])
            try writer.insert("Person", ["name": .text("newcomer"), "address": .int(Int64(address))])
        }.commit
        let replaced = try await realm.write { writer in
            let address = try writer.insert("Address", ["street": .text("Other")])
            try writer.set("address", of: 0, in: "Person", to: .int(Int64(address)))
        }.commit
        let deleted = try await realm.write { try $0.delete(0, from: "Person") }.commit

        let changeSets = try CommitChangeSet.commits(of: realm.file, after: setup.transaction, limit: 10)
        #expect(changeSets.map(\.version.transaction)
                == [deep, shallow, inserted, replaced, deleted].map(\.transaction))
        let expected: [[(String, Changes)]] = [
            [("Person", Changes(modified: [(0, ["address"])]))],
            [("Person", Changes(modified: [(0, ["address"])]))],
            [("Person", Changes(inserted: [2]))],
            [("Person", Changes(modified: [(0, ["address"])]))],
            [("Person", Changes(deleted: [0]))],
        ]
        for (index, changeSet) in changeSets.enumerated() where index < expected.count {
            let classes = Self.classes(of: changeSet)
            #expect(classes.map(\.0) == expected[index].map(\.0), "commit \(index): no embedded class is listed")
            #expect(classes.map(\.1) == expected[index].map(\.1), "commit \(index)")
        }
    }

    @Test func aDroppedClassIsDeletedAllAndListedFirstUnlessCreatedAgain() async throws {
        let (realm, _, _) = try await Self.file()
        let setup = try await realm.write { writer in
            try writer.insert("Person", ["name": .text("person")])
            for _ in 0..<3 { try writer.insert("Dog") }
        }.commit
        try await realm.write { writer in
            try writer.set("age", of: 0, in: "Person", to: .int(5))
            try writer.dropTable("Dog")
        }
        try await realm.write { writer in
            try writer.createTable(ObjectSchemaInfo(className: "Dog", properties: [PropertyInfo(name: "name", kind: .string)]))
            try writer.insert("Dog")
        }
        try await realm.write { writer in
            try writer.dropTable("Dog")
            try writer.createTable(ObjectSchemaInfo(className: "Dog", properties: [PropertyInfo(name: "age", kind: .int)]))
            try writer.insert("Dog")
            try writer.insert("Dog")
        }

        let changeSets = try CommitChangeSet.commits(of: realm.file, after: setup.transaction, limit: 10)
        try #require(changeSets.count == 3)
        let dropped = Self.classes(of: changeSets[0])
        #expect(dropped.map(\.0) == ["Dog", "Person"], "the dropped class first")
        #expect(dropped.first?.1 == Changes(deletedAll: true), "its objects are not listed one by one")
        #expect(dropped.last?.1 == Changes(modified: [(0, ["age"])]))
        // Created: its new schema is read at the new version (the base has no such class).
        #expect(changeSets[1].base.catalog.tables["Dog"] == nil && changeSets[1].version.catalog.tables["Dog"] != nil)
        #expect(Self.classes(of: changeSets[1]).map(\.0) == ["Dog"])
        #expect(Self.classes(of: changeSets[1]).first?.1 == Changes(inserted: [0]))
        // Dropped and created again in one commit: deletedAll, with the new objects, in table order.
        #expect(Self.classes(of: changeSets[2]).map(\.0) == ["Dog"])
        #expect(Self.classes(of: changeSets[2]).first?.1 == Changes(deletedAll: true, inserted: [0, 1]))
        #expect(changeSets[2].version.catalog.tables["Dog"]?.columns["age"] != nil)
    }

    @Test func commitsAreReadOldestFirstEachWithItsOwnChanges() async throws {
        let (realm, position, slotCommit) = try await Self.file()
        var commits: [TestRealmFile.Commit] = []
        for index in 0..<5 {
            commits.append(try await realm.write { writer in
                try writer.insert("Person", ["age": .int(Int64(index))])
                if index > 0 { try writer.set("age", of: UInt64(index - 1), in: "Person", to: .int(-1)) }
            }.commit)
        }
        let first = try CommitChangeSet.commits(of: realm.file, after: position, limit: 3)
        #expect(first.map(\.version.transaction) == commits.prefix(3).map(\.transaction), "the limit, oldest first")
        let rest = try CommitChangeSet.commits(of: realm.file, after: first.last!.version.transaction, limit: 10)
        #expect(rest.map(\.version.transaction) == commits.suffix(2).map(\.transaction), "from a position on")
        #expect(try CommitChangeSet.commits(of: realm.file, after: commits.last!.transaction, limit: 10).isEmpty)
        for (index, changeSet) in (first + rest).enumerated() {
            #expect(changeSet.base.transaction == (index == 0 ? slotCommit : commits[index - 1].transaction), "commit \(index)'s base")
            #expect(Self.classes(of: changeSet).first?.1
                    == Changes(inserted: [UInt64(index)], modified: index > 0 ? [(UInt64(index - 1), ["age"])] : []),
                    "commit \(index) holds its own changes only")
        }
    }

    /// Seeded random commits of inserts, writes and deletes (a deleted last key taken again),
    /// each checked against a model of the objects before and after it.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomCommitsAgreeWithAModel(seed: UInt64) async throws {
        let item = ObjectSchemaInfo(className: "Item", properties: [
            PropertyInfo(name: "a", kind: .int), PropertyInfo(name: "b", kind: .int), PropertyInfo(name: "c", kind: .string),
        ])
        let (realm, position, _) = try await Self.file([item])
        var random = SplitMix64(seed: seed)
        var objects = Set<UInt64>()
        var expected: [Changes] = []
        for _ in 0..<25 {
            let before = objects
            var written: [UInt64: Set<String>] = [:]  // by key, since the object was last inserted or existed before
            var reinserted = Set<UInt64>()
            try await realm.write { writer in
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    let existing = objects.sorted()
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0 where !existing.isEmpty:
                        let key = existing.randomElement(using: &random)!
                        try writer.delete(key, from: "Item")
                        objects.remove(key)
                        written[key] = nil
                        reinserted.remove(key)
                    case 1 where !existing.isEmpty, 2 where !existing.isEmpty:
                        let key = existing.randomElement(using: &random)!
                        let property = ["a", "b", "c"].randomElement(using: &random)!
                        try writer.set(property, of: key, in: "Item",
                                       to: property == "c" ? .text("\(random.next())") : .int(Int64.random(in: 0..<9, using: &random)))
                        written[key, default: []].insert(property)
                    default:
                        let key = try writer.insert("Item", ["a": .int(Int64.random(in: 0..<9, using: &random))])
                        objects.insert(key)
                        if before.contains(key) { reinserted.insert(key) }
                    }
                }
            }
            let survivors = before.intersection(objects)
            let modified = survivors.sorted().compactMap { key -> (UInt64, [String])? in
                if reinserted.contains(key) { return (key, ["a", "b", "c"]) }
                guard let properties = written[key] else { return nil }
                return (key, ["a", "b", "c"].filter(properties.contains))
            }
            expected.append(Changes(inserted: objects.subtracting(before).sorted(), modified: modified,
                                    deleted: before.subtracting(objects).sorted()))
        }
        let changeSets = try CommitChangeSet.commits(of: realm.file, after: position, limit: 100)
        #expect(changeSets.count == expected.count, "seed \(seed): a record per commit")
        for (index, changeSet) in changeSets.enumerated() where index < expected.count {
            let found = Self.classes(of: changeSet).first?.1 ?? Changes()
            #expect(found == expected[index], "seed \(seed), commit \(index)")
        }
        #expect(expected.filter { $0 != Changes() }.count > 20, "seed \(seed): most commits changed objects in the end")
    }
}
