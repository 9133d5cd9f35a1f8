import Foundation
import Testing
import RealmActors
import RealmTestSupport

// Change notifications: results/list/linkingObjects/object/realm `changes` streams, checked
// against the documented index conventions (deletions in the previous delivered collection,
// insertions and modifications in the new one; moves are delete + insert), key-path filters,
// link depth, coalescing, no-op writes, and unregistration.

// MARK: - Models

/// A model whose objects are identified by an `Int` primary key `id`.
protocol CNKeyed: Object {
    var id: Int { get }
}

final class CNItem: Object, CNKeyed {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
    @Persisted var label = ""
}

final class CNOther: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var note = ""
}

final class CNOwner: Object, CNKeyed {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var dogs: List<CNDog>
}

final class CNDog: Object, CNKeyed {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var nickname: String?
    @Persisted var owner: CNOwner?
    @Persisted(originProperty: "dogs") var listedBy: LinkingObjects<CNOwner>
}

/// A chain of nodes (`next`), for the link depth.
final class CNNode: Object, CNKeyed {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
    @Persisted var next: CNNode?
}

extension FrozenResults where T: CNKeyed {
    /// The objects' primary keys, in order.
    var cnIDs: [Int] { map { $0.read { $0.id } } }
}

extension Results where Element: CNKeyed {
    /// The objects' primary keys, in order (a fresh evaluation at the handle's version).
    var cnIDs: [Int] { map { $0.id } }
}

extension List where Element: CNKeyed {
    var cnIDs: [Int] { map { $0.id } }
}

// MARK: - Checking one change

/// The length of a longest strictly increasing subsequence.
private func cnLongestIncreasingRun(_ values: [Int]) -> Int {
    var tails: [Int] = []
    for value in values {
        var low = 0, high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if tails[middle] < value { low = middle + 1 } else { high = middle }
        }
        if low == tails.count { tails.append(value) } else { tails[low] = value }
    }
    return tails.count
}

private func cnIsStrictlyAscending(_ indices: [Int], below bound: Int) -> Bool {
    zip(indices, indices.dropFirst()).allSatisfy { $0 < $1 } && indices.allSatisfy { $0 >= 0 && $0 < bound }
}

/// Checks an `.update` against the previously delivered ids (objects unique in both): indices
/// ascending and in range, modifications not inserted, the invariant (previous minus deletions,
/// plus the new collection's elements at the insertions == new), and that only objects out of
/// order moved (the survivors are a longest run already in order). Records an issue per
/// violation; returns whether everything held.
@discardableResult
private func cnCheckUpdate(previous: [Int], new: [Int], deletions: [Int], insertions: [Int], modifications: [Int],
                           _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    var holds = true
    func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        guard !condition else { return }
        holds = false
        Issue.record("\(context) \(message()) [previous \(previous), new \(new), deletions \(deletions), insertions \(insertions), modifications \(modifications)]",
                     sourceLocation: sourceLocation)
    }
    check(cnIsStrictlyAscending(deletions, below: previous.count), "deletions are not ascending indices of the previous collection")
    check(cnIsStrictlyAscending(insertions, below: new.count), "insertions are not ascending indices of the new collection")
    check(cnIsStrictlyAscending(modifications, below: new.count), "modifications are not ascending indices of the new collection")
    check(Set(modifications).isDisjoint(with: insertions), "an index is both inserted and modified")
    guard holds else { return false }
    var applied = previous
    for index in deletions.reversed() { applied.remove(at: index) }
    for index in insertions {
        guard index <= applied.count else { check(false, "insertion \(index) past the end"); return false }
        applied.insert(new[index], at: index)
    }
    check(applied == new, "previous - deletions + insertions = \(applied), not the new collection")
    let survivorsAtNewPositions = previous.compactMap { new.firstIndex(of: $0) }
    let kept = cnLongestIncreasingRun(survivorsAtNewPositions)
    check(deletions.count == previous.count - kept, "more objects reported moved than needed (kept \(previous.count - deletions.count), could keep \(kept))")
    return holds
}

/// Waits (yielding, never sleeping) until the file has `count` change observers; unregistering
/// is asynchronous. Returns whether it got there within 10 000 yields.
private func cnSettle(_ realm: Realm, observers count: Int) async -> Bool {
    for _ in 0..<10_000 {
        if realm.numberOfChangeObservers == count { return true }
        await Task.yield()
    }
    return realm.numberOfChangeObservers == count
}

// MARK: - Random workloads

/// One write operation on `CNItem`, applied identically to a realm and to a model.
enum CNOp: Sendable, CustomStringConvertible {
    case insert(id: Int, value: Int)
    case delete(id: Int)
    case setValue(id: Int, value: Int)
    case setLabel(id: Int, label: String)

    struct State: Equatable {
        var value: Int
        var label: String
    }

    func apply(in realm: Realm) {
        switch self {
        case .insert(let id, let value):
            realm.create(CNItem.self, value: ["id": id, "value": value])
        case .delete(let id):
            if let item = realm.object(ofType: CNItem.self, forPrimaryKey: id) { realm.delete(item) }
        case .setValue(let id, let value):
            realm.object(ofType: CNItem.self, forPrimaryKey: id)?.value = value
        case .setLabel(let id, let label):
            realm.object(ofType: CNItem.self, forPrimaryKey: id)?.label = label
        }
    }

    func apply(to model: inout [Int: State]) {
        switch self {
        case .insert(let id, let value): model[id] = State(value: value, label: "")
        case .delete(let id): model[id] = nil
        case .setValue(let id, let value): model[id]?.value = value
        case .setLabel(let id, let label): model[id]?.label = label
        }
    }

    /// The object the operation modifies (not inserts or deletes).
    var modifiedID: Int? {
        switch self {
        case .setValue(let id, _), .setLabel(let id, _): id
        case .insert, .delete: nil
        }
    }

    var description: String {
        switch self {
        case .insert(let id, let value): "insert \(id)=\(value)"
        case .delete(let id): "delete \(id)"
        case .setValue(let id, let value): "\(id).value=\(value)"
        case .setLabel(let id, let label): "\(id).label=\(label)"
        }
    }

    /// Writer `writer`'s operations in its transaction `step` of the concurrent test: only its
    /// own objects (ids `writer * 1000 + …`), so the final state does not depend on interleaving.
    static func concurrentPlan(writer: Int, step: Int) -> [CNOp] {
        let base = writer * 1000
        var ops: [CNOp] = [.insert(id: base + step, value: (writer * 37 + step * 53) % 100)]
        if step >= 2 { ops.append(.setValue(id: base + step - 2, value: (writer * 11 + step * 29 + 7) % 100)) }
        if step >= 4 && step % 3 == 0 { ops.append(.delete(id: base + step - 4)) }
        if step % 4 == 1 { ops.append(.setLabel(id: base + step - 1, label: "w\(writer)s\(step)")) }
        return ops
    }
}

/// The three queries the concurrent observers watch, and what they hold for a model.
enum CNObservedQuery: Int, Sendable, CaseIterable {
    case belowFifty, allByValue, fromThirtyDescending

    func results(_ realm: Realm) -> Results<CNItem> {
        switch self {
        case .belowFifty:
            realm.objects(CNItem.self).where { $0.value < 50 }
        case .allByValue:
            realm.objects(CNItem.self).sorted(by: [SortDescriptor(keyPath: "value"), SortDescriptor(keyPath: "id")])
        case .fromThirtyDescending:
            realm.objects(CNItem.self).where { $0.value >= 30 }
                .sorted(by: [SortDescriptor(keyPath: "value", ascending: false), SortDescriptor(keyPath: "id")])
        }
    }

    /// The ids the query holds for `model`; for the unsorted query in id order (compare as sets).
    func expected(_ model: [Int: CNOp.State]) -> [Int] {
        switch self {
        case .belowFifty:
            model.filter { $0.value.value < 50 }.keys.sorted()
        case .allByValue:
            model.sorted { ($0.value.value, $0.key) < ($1.value.value, $1.key) }.map(\.key)
        case .fromThirtyDescending:
            model.filter { $0.value.value >= 30 }.sorted { ($1.value.value, $0.key) < ($0.value.value, $1.key) }.map(\.key)
        }
    }

    var isSorted: Bool { self != .belowFifty }
}

/// Writes its plan with `asyncWrite` on its own handle.
actor CNWriter {
    let configuration: Realm.Configuration
    let index: Int

    init(configuration: Realm.Configuration, index: Int) {
        self.configuration = configuration
        self.index = index
    }

    func run(steps: Int) async throws {
        let realm = try await Realm.open(configuration: configuration)
        for step in 0..<steps {
            let ops = CNOp.concurrentPlan(writer: index, step: step)
            try await realm.asyncWrite { for op in ops { op.apply(in: realm) } }
        }
    }
}

/// Observes a query on its own handle until the delivered collection is `expected`.
actor CNObserver {
    let configuration: Realm.Configuration
    let query: CNObservedQuery

    init(configuration: Realm.Configuration, query: CNObservedQuery) {
        self.configuration = configuration
        self.query = query
    }

    /// Signals `started` once the initial element is in, then consumes until convergence.
    /// Returns the number of updates received.
    func observe(until expected: [Int], started: AsyncStream<Void>.Continuation) async throws -> Int {
        let realm = try await Realm.open(configuration: configuration)
        var changes = query.results(realm).changes.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else {
            Issue.record("\(query): no initial element")
            started.yield()
            return 0
        }
        started.yield()
        var delivered = initial.cnIDs
        var updates = 0
        func converged() -> Bool { query.isSorted ? delivered == expected : delivered.sorted() == expected }
        while !converged() {
            guard let change = await changes.next() else {
                Issue.record("\(query): the stream ended before converging; last \(delivered), expected \(expected)")
                return updates
            }
            guard case .update(let collection, let deletions, let insertions, let modifications) = change else {
                Issue.record("\(query): expected an update, got \(change)")
                return updates
            }
            updates += 1
            let new = collection.cnIDs
            cnCheckUpdate(previous: delivered, new: new, deletions: deletions, insertions: insertions,
                          modifications: modifications, "\(query) update \(updates):")
            // The delivered snapshot is consistent with the query at its version.
            let values = collection.map { $0.read { $0.value } }
            switch query {
            case .belowFifty: #expect(values.allSatisfy { $0 < 50 }, "\(query): \(values)")
            case .allByValue: #expect(values == values.sorted(), "\(query): \(values)")
            case .fromThirtyDescending: #expect(values.allSatisfy { $0 >= 30 } && values == values.sorted(by: >), "\(query): \(values)")
            }
            delivered = new
        }
        return updates
    }
}

// MARK: - Tests

@Suite(.timeLimit(.minutes(1)))
struct ChangeNotificationTests {
    static func realm() throws -> Realm {
        try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
    }

    // MARK: 1. The invariant under random workloads

    @Test(arguments: [false, true], Array(UInt64(1)...12))
    func randomWorkloadsKeepTheInvariant(sorted: Bool, seed: UInt64) async throws {
        var random = SplitMix64(seed: seed &* 0x2545_F491_4F6C_DD1D &+ (sorted ? 7 : 0))
        let realm = try Self.realm()
        // Unsorted: `value < 50` (key order, no moves). Sorted: `value >= 20` by value then id.
        func query() -> Results<CNItem> {
            sorted ? realm.objects(CNItem.self).where { $0.value >= 20 }
                .sorted(by: [SortDescriptor(keyPath: "value"), SortDescriptor(keyPath: "id")])
                : realm.objects(CNItem.self).where { $0.value < 50 }
        }
        func expected(_ model: [Int: CNOp.State]) -> [Int] {
            sorted ? model.filter { $0.value.value >= 20 }.sorted { ($0.value.value, $0.key) < ($1.value.value, $1.key) }.map(\.key)
                : model.filter { $0.value.value < 50 }.keys.sorted()
        }
        var model: [Int: CNOp.State] = [:]
        for id in 0..<20 { model[id] = CNOp.State(value: Int.random(in: 0..<100, using: &random), label: "") }
        var nextID = 20
        try realm.write { for (id, state) in model.sorted(by: { $0.key < $1.key }) { realm.create(CNItem.self, value: ["id": id, "value": state.value]) } }

        var changes = query().changes.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("no initial element"); return }
        var delivered = initial.cnIDs
        #expect(delivered == query().cnIDs)
        #expect(sorted ? delivered == expected(model) : delivered.sorted() == expected(model))
        var modifiedSinceDelivery = Set<Int>()
        var updates = 0

        for step in 0..<60 {
            // One to five operations in one transaction.
            var ops: [CNOp] = []
            for _ in 0..<[1, 1, 1, 2, 3, 5].randomElement(using: &random)! {
                var live = model
                for op in ops { op.apply(to: &live) }
                let existing = live.keys.sorted()
                let choice = existing.isEmpty ? 0 : Int.random(in: 0..<10, using: &random)
                switch choice {
                case 0..<3 where existing.count < 40:
                    ops.append(.insert(id: nextID, value: Int.random(in: 0..<100, using: &random)))
                    nextID += 1
                case 0..<5:
                    ops.append(.delete(id: existing.randomElement(using: &random)!))
                case 5..<8:
                    let id = existing.randomElement(using: &random)!
                    var value = Int.random(in: 0..<100, using: &random)
                    if value == live[id]!.value { value = (value + 1) % 100 }
                    ops.append(.setValue(id: id, value: value))
                default:
                    let id = existing.randomElement(using: &random)!
                    ops.append(.setLabel(id: id, label: "\(live[id]!.label)+"))
                }
            }
            try realm.write { for op in ops { op.apply(in: realm) } }
            for op in ops {
                op.apply(to: &model)
                if let id = op.modifiedID { modifiedSinceDelivery.insert(id) }
            }
            let expectedNow = expected(model)
            let survivorsModified = Set(delivered).intersection(expectedNow).intersection(modifiedSinceDelivery)
            let unchanged = sorted ? delivered == expectedNow : delivered.sorted() == expectedNow
            if unchanged && survivorsModified.isEmpty { continue }  // nothing observable: no element (checked by the next one)

            guard let change = await changes.next(),
                  case .update(let collection, let deletions, let insertions, let modifications) = change else {
                Issue.record("step \(step) (\(ops)): no update"); return
            }
            updates += 1
            let new = collection.cnIDs
            let context = "seed \(seed) step \(step) \(ops):"
            #expect(new == query().cnIDs, "\(context) delivered collection differs from a fresh evaluation")
            #expect(sorted ? new == expectedNow : new.sorted() == expectedNow, "\(context) delivered collection differs from the model")
            #expect(collection.map { $0.read { $0.value } } == new.map { model[$0]?.value ?? -1 }, "\(context) values")
            cnCheckUpdate(previous: delivered, new: new, deletions: deletions, insertions: insertions,
                          modifications: modifications, context)
            let reported = Set(modifications.map { new[$0] })
            if sorted {
                // A modified object that moved is reported as deleted and inserted instead.
                let inserted = Set(insertions.map { new[$0] })
                #expect(reported.isSubset(of: survivorsModified), "\(context) unmodified objects reported modified")
                #expect(survivorsModified.isSubset(of: reported.union(inserted)), "\(context) modified objects not reported")
            } else {
                #expect(reported == survivorsModified, "\(context) modifications \(reported) != modified survivors \(survivorsModified)")
                #expect(insertions.count == Set(new).subtracting(delivered).count, "\(context) unsorted results moved objects")
            }
            delivered = new
            modifiedSinceDelivery = []
        }
        #expect(updates > 10, "the workload produced few updates (\(updates))")
    }

    // MARK: 2. Concurrent writers, several observers

    @Test func observersConvergeWhileEightActorsWrite() async throws {
        let directory = try TemporaryDirectory()
        let configuration = fileConfiguration(directory, "notify.realm")
        let writers = 8, steps = 20
        var model: [Int: CNOp.State] = [-1: CNOp.State(value: 40, label: "")]
        for writer in 0..<writers {
            for step in 0..<steps { for op in CNOp.concurrentPlan(writer: writer, step: step) { op.apply(to: &model) } }
        }
        do {
            let setup = try Realm(configuration: configuration)
            try setup.write { CNOp.insert(id: -1, value: 40).apply(in: setup) }
        }
        let queries = CNObservedQuery.allCases
        let expected = queries.map { $0.expected(model) }
        for (query, ids) in zip(queries, expected) { #expect(ids != [-1] && !ids.isEmpty, "\(query): the final state must differ from the initial") }

        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let updates = try await withThrowingTaskGroup(of: (Int, Int)?.self) { group in
            for (index, query) in queries.enumerated() {
                let observer = CNObserver(configuration: configuration, query: query)
                let target = expected[index]
                group.addTask { (index, try await observer.observe(until: target, started: startedContinuation)) }
            }
            // Every observer has its initial element before the writers start.
            var ready = 0
            for await _ in started {
                ready += 1
                if ready == queries.count { break }
            }
            for index in 0..<writers {
                let writer = CNWriter(configuration: configuration, index: index)
                group.addTask { try await writer.run(steps: steps); return nil }
            }
            var updates = Array(repeating: 0, count: queries.count)
            for try await result in group { if let (index, count) = result { updates[index] = count } }
            return updates
        }
        for (query, count) in zip(queries, updates) { #expect(count >= 1, "\(query) converged without any update") }
        let check = try Realm(configuration: configuration)
        #expect(check.objects(CNItem.self).count == model.count)
    }

    // MARK: 3. Key-path filtering

    /// Dogs 1…3; dog 1 owned by owner 1, dog 2 by owner 2.
    static func kennel() throws -> Realm {
        let realm = try realm()
        try realm.write {
            let first = realm.create(CNOwner.self, value: ["id": 1, "name": "Ann", "age": 30])
            let second = realm.create(CNOwner.self, value: ["id": 2, "name": "Bob", "age": 40])
            realm.create(CNDog.self, value: ["id": 1, "name": "Rex", "age": 1, "owner": first])
            realm.create(CNDog.self, value: ["id": 2, "name": "Fido", "age": 2, "owner": second])
            realm.create(CNDog.self, value: ["id": 3, "name": "Spot", "age": 3])
        }
        return realm
    }

    static func dog(_ realm: Realm, _ id: Int) -> CNDog { realm.object(ofType: CNDog.self, forPrimaryKey: id)! }
    static func owner(_ realm: Realm, _ id: Int) -> CNOwner { realm.object(ofType: CNOwner.self, forPrimaryKey: id)! }

    /// The next element as an update: (ids, deletions, insertions, modifications).
    static func nextUpdate<T: CNKeyed>(_ changes: inout RealmChanges<RealmCollectionChange<FrozenResults<T>>>.Iterator,
                                       sourceLocation: SourceLocation = #_sourceLocation) async -> (ids: [Int], deletions: [Int], insertions: [Int], modifications: [Int])? {
        guard let change = await changes.next() else { Issue.record("the stream ended", sourceLocation: sourceLocation); return nil }
        guard case .update(let collection, let deletions, let insertions, let modifications) = change else {
            Issue.record("expected an update, got \(change)", sourceLocation: sourceLocation); return nil
        }
        return (collection.cnIDs, deletions, insertions, modifications)
    }

    static func initialIDs<T: CNKeyed>(_ changes: inout RealmChanges<RealmCollectionChange<FrozenResults<T>>>.Iterator,
                                       sourceLocation: SourceLocation = #_sourceLocation) async -> [Int]? {
        guard case .initial(let collection)? = await changes.next() else {
            Issue.record("no initial element", sourceLocation: sourceLocation); return nil
        }
        return collection.cnIDs
    }

    @Test func keyPathNameCountsNameChangesOnly() async throws {
        let realm = try Self.kennel()
        let dogs = realm.objects(CNDog.self).sorted(byKeyPath: "id")
        var changes = dogs.changes(keyPaths: ["name"]).makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [1, 2, 3])
        try realm.write { Self.dog(realm, 1).age = 10 }  // not observed: no element
        try realm.write { Self.owner(realm, 1).name = "Anna" }  // a linked object's name: not a path here
        try realm.write { Self.dog(realm, 2).name = "Fido II" }
        let update = try #require(await Self.nextUpdate(&changes))
        #expect(update.ids == [1, 2, 3] && update.deletions == [] && update.insertions == [] && update.modifications == [1])
        // Entering and leaving are reported whatever the key paths.
        try realm.write { realm.create(CNDog.self, value: ["id": 4, "age": 9]) }
        let insert = try #require(await Self.nextUpdate(&changes))
        #expect(insert.ids == [1, 2, 3, 4] && insert.insertions == [3] && insert.modifications == [])
    }

    @Test func keyPathThroughALinkCountsTheLinkAndTheLinkedProperty() async throws {
        let realm = try Self.kennel()
        let dogs = realm.objects(CNDog.self).sorted(byKeyPath: "id")
        var changes = dogs.changes(keyPaths: ["owner.name"]).makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [1, 2, 3])
        try realm.write { Self.owner(realm, 1).age = 31 }  // the owner's other property
        try realm.write { Self.dog(realm, 1).name = "Rex II" }  // the dog's own, unobserved property
        try realm.write { Self.owner(realm, 1).name = "Anna" }
        let rename = try #require(await Self.nextUpdate(&changes))
        #expect(rename.ids == [1, 2, 3] && rename.deletions == [] && rename.insertions == [] && rename.modifications == [0])
        // Changing the link itself counts.
        try realm.write { Self.dog(realm, 3).owner = Self.owner(realm, 2) }
        let relink = try #require(await Self.nextUpdate(&changes))
        #expect(relink.modifications == [2] && relink.deletions == [] && relink.insertions == [])
        // Owner 2 is now linked from dogs 2 and 3.
        try realm.write { Self.owner(realm, 2).name = "Bobby" }
        let both = try #require(await Self.nextUpdate(&changes))
        #expect(both.modifications == [1, 2])
    }

    @Test func partialKeyPathsFilterResultsAndObjects() async throws {
        let realm = try Self.kennel()
        let dogs = realm.objects(CNDog.self).sorted(byKeyPath: "id")
        var changes = dogs.changes(keyPaths: [\CNDog.name]).makeAsyncIterator()
        var dogChanges = Self.dog(realm, 1).changes(keyPaths: [\CNDog.name]).makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [1, 2, 3])
        try realm.write { Self.dog(realm, 1).age = 11; Self.dog(realm, 3).age = 33 }
        try realm.write { Self.dog(realm, 3).name = "Spotty" }
        let update = try #require(await Self.nextUpdate(&changes))
        #expect(update.modifications == [2] && update.deletions == [] && update.insertions == [])
        try realm.write { Self.dog(realm, 1).name = "Rex II" }
        guard case .change(let frozen, let properties)? = await dogChanges.next() else { Issue.record("no object change"); return }
        #expect(properties.map(\.name) == ["name"], "the age change is not observed")
        #expect(properties.first?.oldValue as? String == "Rex" && properties.first?.newValue as? String == "Rex II")
        #expect(frozen.name == "Rex II" && frozen.age == 11)
    }

    // MARK: 4. Link depth

    @Test func aToOneLinkedObjectsChangeModifiesTheLinkingObject() async throws {
        let realm = try Self.kennel()
        var changes = realm.objects(CNDog.self).sorted(byKeyPath: "id").changes.makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [1, 2, 3])
        try realm.write { Self.owner(realm, 2).age = 41 }
        let update = try #require(await Self.nextUpdate(&changes))
        #expect(update.ids == [1, 2, 3] && update.modifications == [1] && update.deletions == [] && update.insertions == [])
    }

    @Test func aListedObjectsChangeAndTheListsMembershipModifyTheOwner() async throws {
        let realm = try Self.kennel()
        var changes = realm.objects(CNOwner.self).sorted(byKeyPath: "id").changes.makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [1, 2])
        try realm.write { Self.owner(realm, 2).dogs.append(Self.dog(realm, 3)) }
        let membership = try #require(await Self.nextUpdate(&changes))
        #expect(membership.modifications == [1] && membership.deletions == [] && membership.insertions == [],
                "appending to owner 2's list modifies owner 2")
        try realm.write { Self.dog(realm, 3).age = 30 }  // dog 3 is in owner 2's list, linked by no owner property
        let listed = try #require(await Self.nextUpdate(&changes))
        #expect(listed.modifications == [1] && listed.deletions == [] && listed.insertions == [])
    }

    @Test func aChangeReachingOnlyThroughLinkingObjectsIsNotAModification() async throws {
        let realm = try Self.kennel()
        try realm.write { Self.owner(realm, 2).dogs.append(Self.dog(realm, 3)) }  // dog 3: listed by owner 2, no owner link
        var changes = realm.objects(CNDog.self).where { $0.owner == nil }.changes.makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [3])
        try realm.write { Self.owner(realm, 2).age = 50 }  // reaches dog 3 only through `listedBy`
        try realm.write { Self.dog(realm, 3).name = "Spotty" }
        let update = try #require(await Self.nextUpdate(&changes))
        #expect(update.ids == [3] && update.modifications == [0] && update.deletions == [] && update.insertions == [])
        // The same for an unfiltered query: the owner change is not a modification of dog 3.
        var all = realm.objects(CNDog.self).sorted(byKeyPath: "id").changes.makeAsyncIterator()
        #expect(await Self.initialIDs(&all) == [1, 2, 3])
        try realm.write { Self.owner(realm, 2).dogs.first!.age = 4 }  // dog 3 itself: modified
        try realm.write { Self.owner(realm, 2).name = "Bobby" }  // dog 2 links to owner 2: modified; dog 3 not
        let next = try #require(await Self.nextUpdate(&all))
        #expect(next.modifications == [1, 2])
        try realm.write { Self.owner(realm, 2).name = "Robert" }
        let ownerOnly = try #require(await Self.nextUpdate(&all))
        #expect(ownerOnly.modifications == [1], "dog 3 is only listed by owner 2")
    }

    @Test func linkedChangesCountUpToFourLinksDeep() async throws {
        let realm = try Self.realm()
        try realm.write {
            var next: CNNode?
            for id in (0...5).reversed() { next = realm.create(CNNode.self, value: ["id": id, "next": next as Any]) }
        }
        var changes = realm.objects(CNNode.self).sorted(byKeyPath: "id").changes.makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [0, 1, 2, 3, 4, 5])
        try realm.write { realm.object(ofType: CNNode.self, forPrimaryKey: 5)!.value = 1 }
        let update = try #require(await Self.nextUpdate(&changes))
        // Node 5 itself, and nodes 4…1 link to it through 1…4 links; node 0 is five links away.
        #expect(update.modifications == [1, 2, 3, 4, 5] && update.deletions == [] && update.insertions == [])
    }

    // MARK: 5. Coalescing

    @Test func aSlowConsumerGetsOneElementForFiftyCommits() async throws {
        let realm = try Self.realm()
        try realm.write { for id in 0..<10 { realm.create(CNItem.self, value: ["id": id, "value": id]) } }
        let items = realm.objects(CNItem.self).sorted(byKeyPath: "id")
        var changes = items.changes.makeAsyncIterator()
        guard case .initial(let initial)? = await changes.next() else { Issue.record("no initial"); return }
        #expect(initial.cnIDs == Array(0..<10))
        for commit in 0..<50 {
            try realm.write {
                realm.create(CNItem.self, value: ["id": 100 + commit, "value": commit])
                if commit % 10 == 3 { realm.object(ofType: CNItem.self, forPrimaryKey: commit / 10 + 1)!.value += 100 }
                if commit == 49 { realm.delete(realm.object(ofType: CNItem.self, forPrimaryKey: 0)!) }
            }
        }
        // Registering another stream makes the notifier take in every durable commit first, so
        // the first stream's tracker has folded all 50 in (no sleeping).
        var probe = items.changes.makeAsyncIterator()
        _ = await probe.next()
        let update = try #require(await Self.nextUpdate(&changes))
        let final = items.cnIDs
        #expect(final == Array(1..<10) + Array(100..<150))
        #expect(update.ids == final)
        #expect(update.deletions == [0] && update.insertions == Array(9..<59) && update.modifications == [0, 1, 2, 3, 4])
        cnCheckUpdate(previous: Array(0..<10), new: update.ids, deletions: update.deletions, insertions: update.insertions,
                      modifications: update.modifications)
        // Nothing was left over: the next element is the next commit alone.
        try realm.write { realm.create(CNItem.self, value: ["id": 200]) }
        let after = try #require(await Self.nextUpdate(&changes))
        #expect(after.ids == final + [200] && after.insertions == [59] && after.deletions == [] && after.modifications == [])
    }

    // MARK: 6. Unregistration

    @Test func breakingOutOfALoopUnregisters() async throws {
        let realm = try Self.realm()
        try realm.write { realm.create(CNItem.self, value: ["id": 1]) }
        let baseline = realm.numberOfChangeObservers
        let stream = realm.objects(CNItem.self).changes
        #expect(realm.numberOfChangeObservers == baseline, "a stream not iterated is not registered")
        for await change in stream {
            guard case .initial = change else { Issue.record("expected the initial element"); break }
            #expect(realm.numberOfChangeObservers == baseline + 1)
            break
        }
        #expect(await cnSettle(realm, observers: baseline), "still \(realm.numberOfChangeObservers) observers after break")

        // An object stream and a realm stream, ended by break after their first element.
        let item = realm.object(ofType: CNItem.self, forPrimaryKey: 1)!
        let itemChanges = item.changes, realmChanges = realm.changes
        try realm.write { item.value = 5 }
        for await _ in itemChanges { break }
        for await _ in realmChanges { break }
        #expect(await cnSettle(realm, observers: baseline))

        // An iterator dropped after one element.
        do {
            var iterator = realm.objects(CNItem.self).changes.makeAsyncIterator()
            _ = await iterator.next()
            #expect(realm.numberOfChangeObservers == baseline + 1)
        }
        #expect(await cnSettle(realm, observers: baseline))
    }

    @Test func cancellingTheIteratingTaskUnregistersAndEndsTheLoop() async throws {
        let configuration = Realm.Configuration(inMemoryIdentifier: UUID().uuidString)
        let realm = try Realm(configuration: configuration)
        try realm.write { realm.create(CNItem.self, value: ["id": 1]) }
        let baseline = realm.numberOfChangeObservers
        let (received, receivedContinuation) = AsyncStream<Void>.makeStream()
        let task = Task {
            let own = try Realm(configuration: configuration)
            var elements = 0
            for await _ in own.objects(CNItem.self).changes {
                elements += 1
                receivedContinuation.yield()
            }
            return elements
        }
        for await _ in received { break }  // the initial element is in: the observer is registered
        #expect(realm.numberOfChangeObservers == baseline + 1)
        task.cancel()
        let elements = try await task.value  // the loop ended
        #expect(elements == 1)
        #expect(await cnSettle(realm, observers: baseline), "still \(realm.numberOfChangeObservers) observers after cancelling")

        // Cancelled while waiting for an object change (no element ever comes).
        let waiting = Task {
            let own = try Realm(configuration: configuration)
            for await _ in own.object(ofType: CNItem.self, forPrimaryKey: 1)!.changes { return false }
            return true
        }
        var registered = false
        for _ in 0..<10_000 where !registered {
            registered = realm.numberOfChangeObservers == baseline + 1
            if !registered { await Task.yield() }
        }
        #expect(registered)
        waiting.cancel()
        #expect(try await waiting.value, "the loop ended without an element")
        #expect(await cnSettle(realm, observers: baseline))
    }

    // MARK: 7. Object streams

    @Test func objectStreamsReportPropertyChangesThenDeletion() async throws {
        let realm = try Self.kennel()
        let dog = Self.dog(realm, 1)
        try realm.write { dog.nickname = "R" }
        var changes = dog.changes.makeAsyncIterator()
        try realm.write { dog.age = 5 }
        guard case .change(let afterAge, let ageChanges)? = await changes.next() else { Issue.record("no change"); return }
        #expect(ageChanges.count == 1 && ageChanges.first?.name == "age")
        #expect(ageChanges.first?.oldValue as? Int == 1 && ageChanges.first?.newValue as? Int == 5)
        #expect(afterAge.age == 5)

        try realm.write { Self.dog(realm, 2).age = 20 }  // another object: nothing
        try realm.write {}  // nothing
        try realm.write { dog.name = "Rexy"; dog.age = 6; dog.nickname = nil }
        guard case .change(let frozen, let properties)? = await changes.next() else { Issue.record("no change"); return }
        let byName = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(Set(properties.map(\.name)) == ["name", "age", "nickname"] && properties.count == 3)
        #expect(byName["name"]?.oldValue as? String == "Rex" && byName["name"]?.newValue as? String == "Rexy")
        #expect(byName["age"]?.oldValue as? Int == 5 && byName["age"]?.newValue as? Int == 6)
        #expect(byName["nickname"]?.oldValue as? String == "R" && byName["nickname"]?.newValue == nil)
        #expect(frozen.name == "Rexy" && frozen.nickname == nil)

        // A changed link, and a change of the linked object, are changes of the link property.
        try realm.write { dog.owner = Self.owner(realm, 2) }
        guard case .change(_, let relink)? = await changes.next() else { Issue.record("no change"); return }
        #expect(relink.map(\.name) == ["owner"] && relink.first?.oldValue == nil && relink.first?.newValue == nil)
        try realm.write { Self.owner(realm, 2).name = "Bobby" }
        guard case .change(let renamed, let linked)? = await changes.next() else { Issue.record("no change"); return }
        #expect(linked.map(\.name) == ["owner"])
        #expect(renamed.owner?.name == "Bobby")

        try realm.write { realm.delete(dog) }
        guard case .deleted? = await changes.next() else { Issue.record("expected .deleted"); return }
        #expect(await changes.next() == nil, "the stream ends after .deleted")
        #expect(await changes.next() == nil)
    }

    @Test func objectStreamsStartAtTheHandlesVersionWhenMade() async throws {
        let realm = try Self.kennel()
        let dog = Self.dog(realm, 2)
        let stream = dog.changes  // at the version the handle reads now
        try realm.write { dog.age = 42 }
        var changes = stream.makeAsyncIterator()
        guard case .change(let frozen, let properties)? = await changes.next() else { Issue.record("no change"); return }
        #expect(properties.map(\.name) == ["age"])
        #expect(properties.first?.oldValue as? Int == 2 && properties.first?.newValue as? Int == 42)
        #expect(frozen.age == 42)

        // Deleted before iteration starts: .deleted, then the end.
        let other = Self.dog(realm, 3)
        let doomed = other.changes
        try realm.write { realm.delete(other) }
        var deletion = doomed.makeAsyncIterator()
        guard case .deleted? = await deletion.next() else { Issue.record("expected .deleted"); return }
        #expect(await deletion.next() == nil)
    }

    @Test func objectStreamsReportLinkedChangesMadeBeforeIterationStarts() async throws {
        let realm = try Self.kennel()
        let dog = Self.dog(realm, 1)  // owned by owner 1
        var changes = dog.changes.makeAsyncIterator()  // made (and its version taken) here; registered at next()
        try realm.write { Self.owner(realm, 1).name = "Anna" }  // a linked object's change: an "owner" change
        try realm.write { dog.age = 7 }
        var names: Set<String> = []
        while !names.contains("age") {
            guard case .change(_, let properties)? = await changes.next() else { Issue.record("no change"); return }
            names.formUnion(properties.map(\.name))
        }
        #expect(names == ["owner", "age"])
        #expect(names.contains("age"))
        // Once iterating, the same kind of change is reported.
        try realm.write { Self.owner(realm, 1).name = "Annie" }
        guard case .change(_, let linked)? = await changes.next() else { Issue.record("no change"); return }
        #expect(linked.map(\.name) == ["owner"])
    }

    // MARK: 8. No-op writes

    @Test func writesChangingNothingObservedReportNothing() async throws {
        let realm = try Self.realm()
        try realm.write {
            for id in 0..<4 { realm.create(CNItem.self, value: ["id": id, "value": id * 10]) }
            realm.create(CNOther.self, value: ["id": 1, "note": "x"])
        }
        let small = realm.objects(CNItem.self).where { $0.value < 25 }.sorted(byKeyPath: "id")
        var changes = small.changes.makeAsyncIterator()
        var itemChanges = realm.object(ofType: CNItem.self, forPrimaryKey: 1)!.changes.makeAsyncIterator()
        var realmChanges = realm.changes.makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [0, 1, 2])

        try realm.write {}
        try realm.write { realm.create(CNOther.self, value: ["id": 2, "note": "x"]) }
        try realm.write { realm.object(ofType: CNOther.self, forPrimaryKey: 1)!.note = "y" }
        try realm.write { realm.object(ofType: CNItem.self, forPrimaryKey: 3)!.label = "outside" }  // not in the query
        try realm.write { realm.create(CNItem.self, value: ["id": 9, "value": 90]) }  // not in the query
        try realm.write { realm.object(ofType: CNItem.self, forPrimaryKey: 2)!.label = "other item" }  // in the query, not item 1
        try realm.write { realm.object(ofType: CNItem.self, forPrimaryKey: 1)!.label = "real" }
        let update = try #require(await Self.nextUpdate(&changes))
        #expect(update.ids == [0, 1, 2] && update.deletions == [] && update.insertions == [])
        #expect(update.modifications == [2] || update.modifications == [1, 2],
                "only item 2's and item 1's label writes may be reported: \(update.modifications)")
        if update.modifications == [2] {  // item 1's write came in a later element
            let rest = try #require(await Self.nextUpdate(&changes))
            #expect(rest.modifications == [1] && rest.deletions == [] && rest.insertions == [])
        }
        guard case .change(_, let properties)? = await itemChanges.next() else { Issue.record("no object change"); return }
        #expect(properties.map(\.name) == ["label"] && properties.first?.newValue as? String == "real")

        // realm.changes has one element per version, possibly coalesced: the last has every write.
        var last: FrozenRealm?
        while let version = await realmChanges.next() {
            last = version
            if version.object(ofType: CNItem.self, forPrimaryKey: 1)?.label == "real" { break }
        }
        #expect(last?.object(ofType: CNOther.self, forPrimaryKey: 1)?.note == "y")
    }

    /// Tables are created when a class is first written; that is a schema change, after which
    /// the collection tracker counts every object as modified.
    @Test func theFirstObjectOfAnotherClassReportsNothing() async throws {
        let realm = try Self.realm()
        try realm.write { for id in 0..<3 { realm.create(CNItem.self, value: ["id": id, "value": id]) } }
        var changes = realm.objects(CNItem.self).sorted(byKeyPath: "id").changes.makeAsyncIterator()
        var itemChanges = realm.object(ofType: CNItem.self, forPrimaryKey: 0)!.changes.makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [0, 1, 2])
        try realm.write { realm.create(CNOther.self, value: ["id": 1]) }  // CNOther's table is created here
        try realm.write { realm.object(ofType: CNItem.self, forPrimaryKey: 1)!.value = 10 }
        try realm.write { realm.object(ofType: CNItem.self, forPrimaryKey: 0)!.value = 5 }
        var modifications: Set<Int> = []
        while !modifications.contains(0) {  // until item 0's write has been reported
            guard let update = await Self.nextUpdate(&changes) else { return }
            #expect(update.ids == [0, 1, 2] && update.deletions == [] && update.insertions == [])
            modifications.formUnion(update.modifications)
        }
        #expect(modifications == [0, 1], "item 2 was not written")
        // The object stream compares values: no spurious change.
        guard case .change(_, let properties)? = await itemChanges.next() else { Issue.record("no object change"); return }
        #expect(properties.map(\.name) == ["value"])
    }

    // MARK: 9. Lists, linking objects, realm versions

    @Test func listChangesReportMembershipOrderAndModifications() async throws {
        let realm = try Self.realm()
        try realm.write {
            let owner = realm.create(CNOwner.self, value: ["id": 1])
            for id in 1...4 { realm.create(CNDog.self, value: ["id": id, "age": id]) }
            for id in 1...3 { owner.dogs.append(Self.dog(realm, id)) }
        }
        let owner = Self.owner(realm, 1)
        var changes = owner.dogs.changes.makeAsyncIterator()
        var delivered = try #require(await Self.initialIDs(&changes))
        #expect(delivered == [1, 2, 3])

        // Each write, the list it leaves, and the expected (deletions, insertions, modifications);
        // nil: check the invariant only; "nothing": the write must not produce an element (the
        // next step's element proves it).
        enum Expected { case indices([Int], [Int], [Int]), invariant, nothing }
        let steps: [(String, (Realm) -> Void, [Int], Expected)] = [
            ("append", { Self.owner($0, 1).dogs.append(Self.dog($0, 4)) }, [1, 2, 3, 4], .indices([], [3], [])),
            ("remove", { Self.owner($0, 1).dogs.remove(at: 1) }, [1, 3, 4], .indices([1], [], [])),
            ("move", { Self.owner($0, 1).dogs.move(from: 0, to: 2) }, [3, 4, 1], .indices([0], [2], [])),
            ("modify", { Self.dog($0, 3).age = 33 }, [3, 4, 1], .indices([], [], [0])),
            ("duplicate", { Self.owner($0, 1).dogs.append(Self.dog($0, 3)) }, [3, 4, 1, 3], .indices([], [3], [])),
            ("swap", { Self.owner($0, 1).dogs.swapAt(0, 2) }, [1, 4, 3, 3], .invariant),
            ("unlisted dogs", { $0.create(CNDog.self, value: ["id": 5]); Self.dog($0, 2).age = 22 }, [1, 4, 3, 3], .nothing),
            ("delete listed dog", { $0.delete(Self.dog($0, 4)) }, [1, 3, 3], .indices([1], [], [])),
        ]
        for (name, write, expectedIDs, expected) in steps {
            try realm.write { write(realm) }
            #expect(owner.dogs.cnIDs == expectedIDs, "\(name): the live list")
            if case .nothing = expected { continue }
            let update = try #require(await Self.nextUpdate(&changes))
            #expect(update.ids == expectedIDs, "\(name)")
            cnCheckDuplicates(previous: delivered, update, name)
            if case .indices(let deletions, let insertions, let modifications) = expected {
                #expect(update.deletions == deletions && update.insertions == insertions && update.modifications == modifications,
                        "\(name): \(update)")
            }
            delivered = update.ids
        }
        // The owner's deletion empties the list.
        try realm.write { realm.delete(owner) }
        let gone = try #require(await Self.nextUpdate(&changes))
        #expect(gone.ids == [] && gone.deletions == [0, 1, 2] && gone.insertions == [] && gone.modifications == [])
    }

    /// The index invariant for a list, whose objects may repeat (checked by position, not identity).
    private func cnCheckDuplicates(previous: [Int], _ update: (ids: [Int], deletions: [Int], insertions: [Int], modifications: [Int]),
                                   _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var applied = previous
        guard cnIsStrictlyAscending(update.deletions, below: previous.count),
              cnIsStrictlyAscending(update.insertions, below: update.ids.count),
              cnIsStrictlyAscending(update.modifications, below: update.ids.count) else {
            Issue.record("\(context): indices out of order or range: \(update)", sourceLocation: sourceLocation); return
        }
        for index in update.deletions.reversed() { applied.remove(at: index) }
        for index in update.insertions where index <= applied.count { applied.insert(update.ids[index], at: index) }
        #expect(applied == update.ids, "\(context): \(previous) - \(update.deletions) + \(update.insertions) = \(applied)",
                sourceLocation: sourceLocation)
    }

    @Test func linkingObjectsChangesReportOwnersComingGoingAndChanging() async throws {
        let realm = try Self.kennel()
        let dog = Self.dog(realm, 3)
        var changes = dog.listedBy.changes.makeAsyncIterator()
        #expect(await Self.initialIDs(&changes) == [])
        try realm.write { Self.owner(realm, 2).dogs.append(dog) }
        let first = try #require(await Self.nextUpdate(&changes))
        #expect(first.ids == [2] && first.insertions == [0] && first.deletions == [] && first.modifications == [])
        try realm.write { Self.owner(realm, 1).dogs.append(dog) }
        let second = try #require(await Self.nextUpdate(&changes))
        #expect(Set(second.ids) == [1, 2] && second.insertions.count == 1 && second.deletions == [])
        cnCheckUpdate(previous: [2], new: second.ids, deletions: second.deletions, insertions: second.insertions,
                      modifications: second.modifications)
        try realm.write { Self.owner(realm, 2).name = "Bobby" }
        let renamed = try #require(await Self.nextUpdate(&changes))
        #expect(renamed.ids == second.ids && renamed.modifications == [second.ids.firstIndex(of: 2)!] && renamed.insertions == [])
        try realm.write { Self.owner(realm, 2).dogs.removeAll() }
        let removed = try #require(await Self.nextUpdate(&changes))
        #expect(removed.ids == [1] && removed.deletions == [second.ids.firstIndex(of: 2)!] && removed.insertions == [])
    }

    @Test func realmChangesDeliverNewVersions() async throws {
        let realm = try Self.realm()
        var versions = realm.changes.makeAsyncIterator()
        for id in 1...3 { try realm.write { realm.create(CNItem.self, value: ["id": id]) } }
        var counts: [Int] = []
        while counts.last != 3 {
            guard let version = await versions.next() else { Issue.record("the stream ended"); return }
            counts.append(version.objects(CNItem.self).count)
        }
        #expect(counts == counts.sorted() && Set(counts).count == counts.count && counts.count <= 3,
                "one element per new version, oldest first: \(counts)")
        try realm.write { realm.create(CNOther.self, value: ["id": 1]) }
        let next = try #require(await versions.next())
        #expect(next.objects(CNItem.self).count == 3 && next.object(ofType: CNOther.self, forPrimaryKey: 1) != nil)
    }
}


