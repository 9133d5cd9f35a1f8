import Foundation
import Testing
@testable import RealmRuntime
import RealmTestSupport

/// The tracker of a list, set or map of values below the API, advanced version by version: each
/// element carries the stored elements last delivered and the newest ones, from which the API
/// layer's diff (``CollectionDiff``'s value initializers, as `List`/`MutableSet`/`Map` changes
/// use them) gives insertions, deletions and modifications by index. Checked: coalescing until
/// taken, writes elsewhere skipped, a collection replaced whole, the owner deleted (the last
/// element), silenced versions.
@Suite struct ValueCollectionChangeTrackerTests {
    /// Owner(name, tags: List<String>, numbers: MutableSet<Int>, scores: Map<String, Int>).
    static let classes = [ObjectSchemaInfo(className: "Owner", properties: [
        PropertyInfo(name: "name", kind: .string),
        PropertyInfo(name: "tags", kind: .string, collection: .list),
        PropertyInfo(name: "numbers", kind: .int, collection: .set),
        PropertyInfo(name: "scores", kind: .int, collection: .map),
    ])]

    static func list(_ tags: [String]) -> ColumnValue { .bytes(PackedCollection.encode(tags.map(ColumnValue.text))) }
    static func set(_ numbers: [Int64]) -> ColumnValue { .bytes(PackedCollection.encode(PackedCollection.setElements(numbers.map(ColumnValue.int)))) }
    static func map(_ scores: [String: Int64]) -> ColumnValue {
        .bytes(PackedCollection.encode(PackedCollection.mapElements(scores.map { ($0.key, ColumnValue.int($0.value)) })))
    }

    /// Owners 0 and 1 with tags [a, b, c], numbers {1, 2, 3} and scores [x: 1, y: 2]; a tracker
    /// of owner 0's `property`.
    static func observed(_ property: String) async throws -> (realm: TestRealmFile, tracker: ValueCollectionChangeTracker) {
        let realm = try await TestRealmFile(classes)
        try await realm.write { writer in
            for _ in 0..<2 {
                try writer.insert("Owner", ["tags": list(["a", "b", "c"]), "numbers": set([1, 2, 3]), "scores": map(["x": 1, "y": 2])])
            }
        }
        return (realm, ValueCollectionChangeTracker(className: "Owner", key: 0, property: property, snapshot: try realm.newest()))
    }

    /// Writes `value` to owner `key`'s `property`, advances `tracker` and returns what it said.
    @discardableResult
    static func write(_ value: ColumnValue, to property: String, of key: UInt64 = 0, in realm: TestRealmFile,
                      advancing tracker: ValueCollectionChangeTracker, silent: Bool = false) async throws -> Bool {
        let commit = try await realm.write { try $0.set(property, of: key, in: "Owner", to: value) }.commit
        return tracker.advance(try realm.version(after: [commit]), silent: silent)
    }

    /// The pending element's previous and current elements, and whether it is the last.
    static func take(_ tracker: ValueCollectionChangeTracker) -> (previous: [ColumnValue], current: [ColumnValue], isLast: Bool)? {
        guard let (element, isLast) = tracker.takeElement() else { return nil }
        guard case .values(_, let table, 0, let column, let previous?, let current) = element, table.name == "Owner",
              table.property(column)?.collection != nil else {
            Issue.record("not a change of a collection of owner 0: \(element)")
            return nil
        }
        return (previous, current, isLast)
    }

    /// The list diff the API reports for the pending element, as (deletions, insertions, modifications).
    static func listDiff(_ tracker: ValueCollectionChangeTracker) -> ([Int], [Int], [Int])? {
        guard let (previous, current, _) = take(tracker) else { return nil }
        let diff = CollectionDiff(oldList: previous, newList: current)
        return (diff.deletions, diff.insertions, diff.modifications)
    }

    @Test func theInitialElementIsTheStoredElements() async throws {
        let (_, tracker) = try await Self.observed("tags")
        guard case .values(_, _, 0, _, nil, let current)? = tracker.initialElement() else {
            Issue.record("no initial values element without previous elements")
            return
        }
        #expect(current == ["a", "b", "c"].map(ColumnValue.text))
        #expect(tracker.takeElement() == nil)
    }

    @Test func listEditsReportTheirIndices() async throws {
        let (realm, tracker) = try await Self.observed("tags")
        #expect(try await Self.write(Self.list(["a", "b", "c", "d"]), to: "tags", in: realm, advancing: tracker))
        #expect(Self.listDiff(tracker).map { [$0.0, $0.1, $0.2] } == [[], [3], []], "appended")
        try await Self.write(Self.list(["b", "c", "d"]), to: "tags", in: realm, advancing: tracker)
        #expect(Self.listDiff(tracker).map { [$0.0, $0.1, $0.2] } == [[0], [], []], "removed the first")
        try await Self.write(Self.list(["b", "x", "d"]), to: "tags", in: realm, advancing: tracker)
        #expect(Self.listDiff(tracker).map { [$0.0, $0.1, $0.2] } == [[], [], [1]], "replaced the middle")
        #expect(tracker.takeElement() == nil, "taken")
    }

    @Test func versionsAreCoalescedFromTheElementsLastDelivered() async throws {
        let (realm, tracker) = try await Self.observed("tags")
        try await Self.write(Self.list(["a", "b", "c", "d"]), to: "tags", in: realm, advancing: tracker)
        try await Self.write(Self.list(["a", "c", "d"]), to: "tags", in: realm, advancing: tracker)
        let (previous, current, isLast) = try #require(Self.take(tracker))
        #expect(previous == ["a", "b", "c"].map(ColumnValue.text) && current == ["a", "c", "d"].map(ColumnValue.text) && !isLast)
        // Changed and changed back before being taken: nothing to report.
        try await Self.write(Self.list(["z"]), to: "tags", in: realm, advancing: tracker)
        #expect(try await !Self.write(Self.list(["a", "c", "d"]), to: "tags", in: realm, advancing: tracker))
        #expect(tracker.takeElement() == nil)
    }

    @Test func writesElsewhereAreSkipped() async throws {
        let (realm, tracker) = try await Self.observed("tags")
        #expect(try await !Self.write(.text("renamed"), to: "name", in: realm, advancing: tracker), "another property of the owner")
        #expect(try await !Self.write(Self.list(["q"]), to: "tags", of: 1, in: realm, advancing: tracker), "another owner's list")
        #expect(try await !Self.write(Self.list(["a", "b", "c"]), to: "tags", in: realm, advancing: tracker), "the same elements")
        #expect(tracker.takeElement() == nil)
    }

    @Test func aCollectionReplacedWholeIsEveryElementRemovedAndInserted() async throws {
        let (realm, tracker) = try await Self.observed("tags")
        try await Self.write(Self.list(["p", "q"]), to: "tags", in: realm, advancing: tracker)
        #expect(Self.listDiff(tracker).map { [$0.0, $0.1, $0.2] } == [[0, 1, 2], [0, 1], []])
        try await Self.write(Self.list([]), to: "tags", in: realm, advancing: tracker)
        #expect(Self.listDiff(tracker).map { [$0.0, $0.1, $0.2] } == [[0, 1], [], []], "emptied")
    }

    @Test func setsAndMapsReportTheirMembersAndEntries() async throws {
        let (setRealm, setTracker) = try await Self.observed("numbers")
        try await Self.write(Self.set([0, 2, 3, 4]), to: "numbers", in: setRealm, advancing: setTracker)
        let (oldSet, newSet, _) = try #require(Self.take(setTracker))
        let setDiff = CollectionDiff(oldSet: oldSet, newSet: newSet)
        #expect(newSet == [0, 2, 3, 4].map(ColumnValue.int) && setDiff.deletions == [0] && setDiff.insertions == [0, 3])

        let (mapRealm, mapTracker) = try await Self.observed("scores")
        try await Self.write(Self.map(["w": 0, "y": 5]), to: "scores", in: mapRealm, advancing: mapTracker)
        let (oldMap, newMap, _) = try #require(Self.take(mapTracker))
        let mapDiff = CollectionDiff(oldMap: oldMap, newMap: newMap)
        #expect(mapDiff.deletions == [0] && mapDiff.insertions == [0] && mapDiff.modifications == [1], "x removed, w added, y changed")
    }

    @Test func theOwnerDeletedIsTheLastElementEvenWhenSilenced() async throws {
        for silent in [false, true] {
            let (realm, tracker) = try await Self.observed("tags")
            let commit = try await realm.write { try $0.delete(0, from: "Owner") }.commit
            #expect(tracker.advance(try realm.version(after: [commit]), silent: silent), "silent \(silent)")
            let (previous, current, isLast) = try #require(Self.take(tracker))
            #expect(previous == ["a", "b", "c"].map(ColumnValue.text) && current.isEmpty && isLast, "silent \(silent): everything removed, the end")
            #expect(try await !Self.write(Self.list(["q"]), to: "tags", of: 1, in: realm, advancing: tracker), "silent \(silent): ended")
        }
    }

    @Test func aSilentVersionMovesTheBaseline() async throws {
        let (realm, tracker) = try await Self.observed("tags")
        #expect(try await !Self.write(Self.list(["a", "b"]), to: "tags", in: realm, advancing: tracker, silent: true))
        #expect(tracker.takeElement() == nil, "a silent version is not reported")
        try await Self.write(Self.list(["a", "b", "e"]), to: "tags", in: realm, advancing: tracker)
        #expect(Self.listDiff(tracker).map { [$0.0, $0.1, $0.2] } == [[], [2], []], "only the later change")
    }

    /// Seeded random edits of the list, several commits per element: each element's diff takes
    /// the elements delivered before to the newest ones.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomEditsDeliverEveryState(seed: UInt64) async throws {
        let (realm, tracker) = try await Self.observed("tags")
        var random = SplitMix64(seed: seed)
        var tags = ["a", "b", "c"], delivered = tags
        for round in 0..<40 {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where !tags.isEmpty: tags.remove(at: Int.random(in: 0..<tags.count, using: &random))
                case 1 where !tags.isEmpty: tags[Int.random(in: 0..<tags.count, using: &random)] = "\(Int.random(in: 0..<5, using: &random))"
                default: tags.insert("\(Int.random(in: 0..<5, using: &random))", at: Int.random(in: 0...tags.count, using: &random))
                }
                try await Self.write(Self.list(tags), to: "tags", in: realm, advancing: tracker)
            }
            guard let (previous, current, _) = Self.take(tracker) else {
                #expect(tags == delivered, "seed \(seed), round \(round): no element, but the list changed")
                continue
            }
            #expect(previous == delivered.map(ColumnValue.text) && current == tags.map(ColumnValue.text), "seed \(seed), round \(round)")
            let diff = CollectionDiff(oldList: previous, newList: current)
            var applied = previous
            for index in diff.modifications { applied[index] = current[index] }
            for index in diff.deletions.reversed() { applied.remove(at: index) }
            for index in diff.insertions { applied.insert(current[index], at: index) }
            #expect(applied == current, "seed \(seed), round \(round): the diff applied")
            delivered = tags
        }
    }
}
