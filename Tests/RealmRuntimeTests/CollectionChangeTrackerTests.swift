import Foundation
import Testing
@testable import RealmRuntime
import RealmTestSupport

/// The collection change tracker and ``ObservedQuery`` below the API, driven version by version
/// with the row changes of seeded random commits (inserts, value edits, edits of a column no
/// query reads, deletions, a deleted key taken again), and checked against a recomputation from
/// scratch: the incremental keys against a full evaluation, the tracker's keys against a model
/// kept in plain Swift, its diff by applying it to the keys delivered before, and its
/// modifications against the objects the model says were edited.
@Suite struct CollectionChangeTrackerTests {
    /// Item(value: Int, group: Int): the queries read `value` (predicate, sort) and some `group`.
    static let schema = ObjectSchemaInfo(className: "Item", properties: [
        PropertyInfo(name: "value", kind: .int), PropertyInfo(name: "group", kind: .int),
    ])

    /// What the tracked queries mean, over the model (key → (value, group)).
    struct Observed: Sendable {
        var text: String?
        var ordering: [QueryDescriptor]
        var reference: @Sendable ([UInt64: (value: Int64, group: Int64)]) -> [UInt64]
    }

    static let observed: [Observed] = [
        Observed(text: "value < 50", ordering: []) { items in items.filter { $0.value.value < 50 }.keys.sorted() },
        Observed(text: "group != 1", ordering: [.sort([SortKey(keyPath: "value", ascending: true)])]) { items in
            items.filter { $0.value.group != 1 }.sorted { ($0.value.value, $0.key) < ($1.value.value, $1.key) }.map(\.key)
        },
        Observed(text: nil, ordering: [.sort([SortKey(keyPath: "value", ascending: false)])]) { items in
            items.sorted { $0.value.value != $1.value.value ? $0.value.value > $1.value.value : $0.key < $1.key }.map(\.key)
        },
        Observed(text: "value >= 10", ordering: [.sort([SortKey(keyPath: "value", ascending: true)]), .limit(5)]) { items in
            Array(items.filter { $0.value.value >= 10 }.sorted { ($0.value.value, $0.key) < ($1.value.value, $1.key) }.map(\.key).prefix(5))
        },
    ]

    @Test(arguments: [1, 2, 3] as [UInt64])
    func trackersAgreeWithARecomputationAfterEveryCommit(seed: UInt64) throws {
        let file = try SharedRealmFile.open(.inMemory("CollectionChangeTrackerTests-\(UUID().uuidString)"), readOnly: false)
        var random = SplitMix64(seed: seed)
        var items: [UInt64: (value: Int64, group: Int64)] = [:]

        // The table, with a few items, first.
        var write = try file.writes.beginBlocking()
        var stored = write.schema.stored
        stored.tables.append(try write.transaction.createTable(Self.schema))
        let catalog = SchemaCatalog(stored)
        let table = catalog.tables["Item"]!
        for _ in 0..<20 {
            let values: [ColumnValue] = [.int(Int64.random(in: 0..<100, using: &random)), .int(Int64.random(in: 0..<3, using: &random))]
            let key = try write.transaction.newObjectKey(in: table, values: values)
            try write.transaction.insertObject(into: table, key: key, values: values)
            if case .int(let value) = values[0], case .int(let group) = values[1] { items[key] = (value, group) }
        }
        try file.writes.waitUntilDurableBlocking(try file.writes.commit(write, schema: catalog, changes: CommitChanges(rows: write.transaction.changeLog, silencedObservers: [])))

        let start = try FrozenVersion.newest(of: file)
        let queries = try Self.observed.map { observed in
            ObservedQuery(query: ObjectQuery(className: "Item", predicate: try observed.text.map { try QueryParser.parse($0) },
                                             ordering: observed.ordering))
        }
        let trackers = queries.map { CollectionChangeTracker(query: $0, filter: .everything(depth: ChangeFilter.defaultLinkDepth), snapshot: start) }
        var delivered: [[UInt64]] = trackers.map { tracker in
            guard case .collection(_, _, let keys, nil)? = tracker.initialElement() else { return [] }
            return keys
        }
        for (index, observed) in Self.observed.enumerated() {
            #expect(delivered[index] == observed.reference(items), "initial keys of \(observed.text ?? "all")")
        }
        var previousKeys = queries.map { $0.keys(at: start) }
        var (incremental, elements, modifications) = (0, 0, 0)

        for round in 0..<60 {
            // A commit of a few edits (sometimes many, past the incremental limit).
            write = try file.writes.beginBlocking()
            var edited = Set<UInt64>()  // existed before, exist after, a column written
            let before = Set(items.keys)
            for _ in 0..<(round % 10 == 9 ? 30 : Int.random(in: 1...5, using: &random)) {
                let existing = items.keys.sorted()
                switch Int.random(in: 0..<6, using: &random) {
                case 0 where !existing.isEmpty:
                    let key = existing.randomElement(using: &random)!
                    _ = try write.transaction.deleteObject(key, from: table, catalog: catalog)
                    items[key] = nil
                    edited.remove(key)
                case 1 where !existing.isEmpty, 2 where !existing.isEmpty:
                    let (key, value) = (existing.randomElement(using: &random)!, Int64.random(in: 0..<100, using: &random))
                    try write.transaction.setValue(.int(value), column: 0, of: key, in: table, catalog: catalog)
                    items[key]!.value = value
                    if before.contains(key) { edited.insert(key) }
                case 3 where !existing.isEmpty:
                    let (key, group) = (existing.randomElement(using: &random)!, Int64.random(in: 0..<3, using: &random))
                    try write.transaction.setValue(.int(group), column: 1, of: key, in: table, catalog: catalog)
                    items[key]!.group = group
                    if before.contains(key) { edited.insert(key) }
                default:  // an insert; after deleting the last object, it takes its key again
                    let (value, group) = (Int64.random(in: 0..<100, using: &random), Int64.random(in: 0..<3, using: &random))
                    let values: [ColumnValue] = [.int(value), .int(group)]
                    let key = try write.transaction.newObjectKey(in: table, values: values)
                    try write.transaction.insertObject(into: table, key: key, values: values)
                    items[key] = (value, group)
                    if before.contains(key) { edited.insert(key) }  // removed and inserted again: modified
                }
            }
            let log = write.transaction.changeLog
            try file.writes.waitUntilDurableBlocking(try file.writes.commit(write, schema: catalog, changes: CommitChanges(rows: log, silencedObservers: [])))
            let snapshot = try FrozenVersion.newest(of: file)
            let version = VersionContext(snapshot: snapshot, changes: RowChanges(log))

            for (index, tracker) in trackers.enumerated() {
                let name = "\(Self.observed[index].text ?? "all") \(Self.observed[index].ordering), round \(round)"
                let expected = Self.observed[index].reference(items)
                // The incremental keys, where they apply, equal a full evaluation.
                let scratch = queries[index].keys(at: snapshot)
                #expect(scratch == expected, "\(name): a full evaluation")
                let plan = try queries[index].predicate.map { try snapshot.queries().bind($0, to: table) }
                if let updated = queries[index].keys(updating: previousKeys[index], with: RowChanges(log), in: version, plan: plan) {
                    #expect(updated == scratch, "\(name): the keys updated by the changes")
                    incremental += 1
                }
                previousKeys[index] = scratch

                _ = tracker.advance(version, silent: false)
                let old = delivered[index]
                guard let (element, isLast) = tracker.takeElement() else {
                    #expect(old == expected, "\(name): no element, but the keys changed")
                    #expect(!expected.contains(where: edited.contains), "\(name): no element, but an object of the results was edited")
                    continue
                }
                elements += 1
                guard case .collection(_, _, let keys, let diff?) = element else {
                    Issue.record("\(name): not a collection change: \(element)")
                    continue
                }
                #expect(!isLast)
                #expect(keys == expected, "\(name): the keys")
                // The diff takes the keys delivered before to these.
                var applied = old
                for deletion in diff.deletions.reversed() { applied.remove(at: deletion) }
                for insertion in diff.insertions { applied.insert(keys[insertion], at: insertion) }
                #expect(applied == keys, "\(name): the diff applied")
                // Modified: the survivors (in both, not moved) that a commit edited.
                let survivors = keys.indices.filter { !diff.insertions.contains($0) }
                #expect(diff.modifications == survivors.filter { edited.contains(keys[$0]) }, "\(name): the modifications")
                modifications += diff.modifications.count
                delivered[index] = keys
            }
        }
        // Every path was taken: the incremental update, elements, modifications.
        #expect(incremental > 60 && elements > 100 && modifications > 30, "\(incremental) incremental, \(elements) elements, \(modifications) modifications")
    }

    /// A silent advance (every commit asked not to notify) moves the baseline: the next element
    /// reports only later changes.
    @Test func aSilentAdvanceMovesTheBaseline() throws {
        let file = try SharedRealmFile.open(.inMemory("CollectionChangeTrackerTests-\(UUID().uuidString)"), readOnly: false)
        var write = try file.writes.beginBlocking()
        var stored = write.schema.stored
        stored.tables.append(try write.transaction.createTable(Self.schema))
        let catalog = SchemaCatalog(stored)
        let table = catalog.tables["Item"]!
        try file.writes.waitUntilDurableBlocking(try file.writes.commit(write, schema: catalog, changes: CommitChanges(rows: write.transaction.changeLog, silencedObservers: [])))
        let tracker = CollectionChangeTracker(query: ObservedQuery(query: ObjectQuery(className: "Item")),
                                              filter: .everything(depth: ChangeFilter.defaultLinkDepth), snapshot: try FrozenVersion.newest(of: file))
        func insert(_ key: UInt64, silent: Bool) throws {
            write = try file.writes.beginBlocking()
            try write.transaction.insertObject(into: table, key: key, values: [.int(1), .int(0)])
            let log = write.transaction.changeLog
            try file.writes.waitUntilDurableBlocking(try file.writes.commit(write, schema: catalog, changes: CommitChanges(rows: log, silencedObservers: [])))
            _ = tracker.advance(VersionContext(snapshot: try FrozenVersion.newest(of: file), changes: RowChanges(log)), silent: silent)
        }
        try insert(0, silent: true)
        #expect(tracker.takeElement() == nil, "a silent version is not reported")
        try insert(1, silent: false)
        guard case .collection(_, _, let keys, let diff?)? = tracker.takeElement()?.element else {
            Issue.record("no collection element")
            return
        }
        #expect(keys == [0, 1] && diff.insertions == [1] && diff.deletions.isEmpty)
    }
}
