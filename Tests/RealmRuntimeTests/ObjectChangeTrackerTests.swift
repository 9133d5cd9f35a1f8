import Foundation
import Testing
@testable import RealmRuntime
import RealmTestSupport

/// The object tracker below the API, advanced version by version as the notifier advances it:
/// changed properties by column with their old and new stored values, coalesced until taken;
/// writes that leave a value as it was, other objects and other tables ignored; changes of
/// linked objects through the link property, as the filter follows links; deletion ending the
/// stream; silenced versions moving the baseline.
@Suite struct ObjectChangeTrackerTests {
    /// Person(name, age, dog → Dog(name, age)), and an unrelated Toy.
    static let classes = [
        ObjectSchemaInfo(className: "Person", properties: [
            PropertyInfo(name: "name", kind: .string), PropertyInfo(name: "age", kind: .int),
            PropertyInfo(name: "dog", kind: .object, isOptional: true, objectClassName: "Dog"),
        ]),
        ObjectSchemaInfo(className: "Dog", properties: [PropertyInfo(name: "name", kind: .string), PropertyInfo(name: "age", kind: .int)]),
        ObjectSchemaInfo(className: "Toy", properties: [PropertyInfo(name: "name", kind: .string)]),
    ]
    // Person's columns.
    static let name = 0, age = 1, dog = 2

    /// A file with persons 0 ("Ann", 30, dog 0) and 1 ("Bob", 40, dog 1), dogs 0 and 1, a toy;
    /// and a tracker of person 0.
    static func observed(filter: ChangeFilter = .everything(depth: ChangeFilter.defaultLinkDepth)) async throws
        -> (realm: TestRealmFile, tracker: ObjectChangeTracker) {
        let realm = try await TestRealmFile(classes)
        try await realm.write { writer in
            for (index, name) in ["Ann", "Bob"].enumerated() {
                let dog = try writer.insert("Dog", ["name": .text("dog of \(name)"), "age": .int(3)])
                try writer.insert("Person", ["name": .text(name), "age": .int(Int64(30 + 10 * index)), "dog": .int(Int64(dog))])
            }
            try writer.insert("Toy")
        }
        return (realm, ObjectChangeTracker(className: "Person", key: 0, filter: filter, snapshot: try realm.newest()))
    }

    /// Makes the commit of `body` and advances `tracker` to it; returns what `advance` said.
    @discardableResult
    static func commit(_ realm: TestRealmFile, advancing tracker: ObjectChangeTracker, silent: Bool = false,
                       _ body: (TestRealmFile.Writer) throws -> Void) async throws -> Bool {
        let commit = try await realm.write(body).commit
        return tracker.advance(try realm.version(after: [commit]), silent: silent)
    }

    /// The changed properties of the pending element (nil if none), as (column, old, new).
    static func changes(_ tracker: ObjectChangeTracker) -> [(column: Int, old: ColumnValue?, new: ColumnValue?)]? {
        guard let (element, isLast) = tracker.takeElement() else { return nil }
        guard case .object(_, let table, let key, let changes) = element, !isLast, table.name == "Person", key == 0 else {
            Issue.record("not a change of person 0: \(element), last: \(isLast)")
            return nil
        }
        return changes.map { ($0.column, $0.old, $0.new) }
    }

    @Test func changedPropertiesAreReportedByColumnWithOldAndNewValues() async throws {
        let (realm, tracker) = try await Self.observed()
        #expect(tracker.initialElement() == nil, "an object's stream has no initial element")
        let pending = try await Self.commit(realm, advancing: tracker) { writer in
            try writer.set("age", of: 0, in: "Person", to: .int(31))
            try writer.set("name", of: 0, in: "Person", to: .text("Anne"))
        }
        #expect(pending)
        let changes = try #require(Self.changes(tracker))
        #expect(changes.map(\.column) == [Self.name, Self.age], "in column order")
        #expect(changes.map(\.old) == [.text("Ann"), .int(30)] && changes.map(\.new) == [.text("Anne"), .int(31)])
        #expect(tracker.takeElement() == nil, "taken")
    }

    @Test func versionsAreCoalescedUntilTakenFromTheFirstOldValue() async throws {
        let (realm, tracker) = try await Self.observed()
        try await Self.commit(realm, advancing: tracker) { try $0.set("age", of: 0, in: "Person", to: .int(31)) }
        try await Self.commit(realm, advancing: tracker) { writer in
            try writer.set("name", of: 0, in: "Person", to: .text("Anne"))
            try writer.set("age", of: 0, in: "Person", to: .int(32))
        }
        let changes = try #require(Self.changes(tracker))
        #expect(changes.map(\.column) == [Self.age, Self.name], "in the order the versions found them")
        #expect(changes.map(\.old) == [.int(30), .text("Ann")] && changes.map(\.new) == [.int(32), .text("Anne")])
    }

    @Test func unchangedValuesOtherObjectsAndOtherTablesAreNotChanges() async throws {
        let (realm, tracker) = try await Self.observed()
        // A write of the value it had: the log says written, the value did not change.
        #expect(try await !Self.commit(realm, advancing: tracker) { try $0.set("age", of: 0, in: "Person", to: .int(30)) })
        #expect(try await !Self.commit(realm, advancing: tracker) { try $0.set("age", of: 1, in: "Person", to: .int(41)) })
        #expect(try await !Self.commit(realm, advancing: tracker) { try $0.set("name", of: 0, in: "Toy", to: .text("ball")) })
        #expect(try await !Self.commit(realm, advancing: tracker) { try $0.set("name", of: 1, in: "Dog", to: .text("Bob's")) },
                "a dog person 0 does not link to")
        #expect(tracker.takeElement() == nil)
        // Still tracking: the next change is reported against the values as they are now.
        try await Self.commit(realm, advancing: tracker) { try $0.set("age", of: 0, in: "Person", to: .int(31)) }
        let changes = try #require(Self.changes(tracker))
        #expect(changes.map(\.column) == [Self.age] && changes.first?.old == .int(30))
    }

    @Test func deletionEndsTheStreamEvenWhenSilenced() async throws {
        for silent in [false, true] {
            let (realm, tracker) = try await Self.observed()
            try await Self.commit(realm, advancing: tracker) { try $0.set("age", of: 0, in: "Person", to: .int(31)) }
            #expect(try await Self.commit(realm, advancing: tracker, silent: silent) { try $0.delete(0, from: "Person") })
            guard case (.objectDeleted, true)? = tracker.takeElement() else {
                Issue.record("silent \(silent): no last objectDeleted element")
                continue
            }
            #expect(try await !Self.commit(realm, advancing: tracker) { try $0.insert("Person") }, "silent \(silent): ended")
        }
    }

    @Test func theClassDroppedIsADeletion() async throws {
        let (realm, tracker) = try await Self.observed()
        #expect(try await Self.commit(realm, advancing: tracker) { try $0.dropTable("Person") })
        guard case (.objectDeleted, true)? = tracker.takeElement() else {
            Issue.record("no last objectDeleted element")
            return
        }
    }

    @Test func aLinkedObjectsChangeIsAChangeOfTheLinkProperty() async throws {
        let (realm, tracker) = try await Self.observed()
        try await Self.commit(realm, advancing: tracker) { try $0.set("age", of: 0, in: "Dog", to: .int(4)) }
        let changes = try #require(Self.changes(tracker))
        #expect(changes.map(\.column) == [Self.dog] && changes.first?.old == .int(0) && changes.first?.new == .int(0),
                "the link property, still to the same dog")
        // Depth 0 follows no link.
        let (shallowRealm, shallow) = try await Self.observed(filter: .everything(depth: 0))
        #expect(try await !Self.commit(shallowRealm, advancing: shallow) { try $0.set("age", of: 0, in: "Dog", to: .int(4)) })
        #expect(shallow.takeElement() == nil)
    }

    /// Key paths: (paths, the edit, the columns reported).
    static let filtered: [([String], String, [Int])] = [
        (["name"], "person.age", []),
        (["name"], "person.name", [name]),
        (["dog"], "dog.name", []),
        (["dog"], "person.dog", [dog]),
        (["dog.name"], "dog.age", []),
        (["dog.name"], "dog.name", [dog]),
        (["dog.name"], "person.dog", [dog]),
        (["age", "dog.age"], "dog.age", [dog]),
        (["age", "dog.age"], "person.name", []),
    ]

    @Test(arguments: filtered)
    func keyPathsCountOnlyTheirProperties(paths: [String], edit: String, columns: [Int]) async throws {
        let (realm, tracker) = try await Self.observed(filter: try #require(ChangeFilter(keyPaths: paths)))
        let pending = try await Self.commit(realm, advancing: tracker) { writer in
            switch edit {
            case "person.age": try writer.set("age", of: 0, in: "Person", to: .int(31))
            case "person.name": try writer.set("name", of: 0, in: "Person", to: .text("Anne"))
            case "person.dog": try writer.set("dog", of: 0, in: "Person", to: .int(1))
            case "dog.name": try writer.set("name", of: 0, in: "Dog", to: .text("Rex"))
            default: try writer.set("age", of: 0, in: "Dog", to: .int(4))
            }
        }
        #expect(pending == !columns.isEmpty, "\(paths), \(edit)")
        #expect(Self.changes(tracker)?.map(\.column) ?? [] == columns, "\(paths), \(edit)")
    }

    @Test func aSilentVersionMovesTheBaseline() async throws {
        let (realm, tracker) = try await Self.observed()
        #expect(try await !Self.commit(realm, advancing: tracker, silent: true) { try $0.set("age", of: 0, in: "Person", to: .int(31)) })
        #expect(tracker.takeElement() == nil, "a silent version is not reported")
        try await Self.commit(realm, advancing: tracker) { try $0.set("name", of: 0, in: "Person", to: .text("Anne")) }
        let changes = try #require(Self.changes(tracker))
        #expect(changes.map(\.column) == [Self.name], "only the later change")
        // And a value changed silently and back loudly is a change from the silent value.
        try await Self.commit(realm, advancing: tracker) { try $0.set("age", of: 0, in: "Person", to: .int(30)) }
        #expect(try #require(Self.changes(tracker)).map(\.old) == [.int(31)])
    }
}
