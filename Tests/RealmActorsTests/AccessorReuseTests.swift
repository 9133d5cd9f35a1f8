import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class ARItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0.0
}

/// A class with state of its own besides its wrappers: its accessors are never reused.
final class ARTagged: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    var scratch = 0
}

class ARBase: Object {
    @Persisted(primaryKey: true) var id = 0
}

/// State declared two levels below `Object`.
final class ARDerivedWithState: ARBase {
    @Persisted var name = ""
    var scratch: [Int] = []
}

/// `for object in results` moves an accessor that nothing references any more to the next object
/// instead of allocating another (`Results.Iterator`). These tests hold on to objects in every
/// way a loop can — strongly, weakly, unowned, in collections and closures, in other results —
/// and check that each object still reads its own row, that objects of classes with state of
/// their own are never reused, and (so that the rest cannot pass vacuously) that reuse happens.
@Suite struct AccessorReuseTests {
    static func realm(_ name: String, count: Int = 500) throws -> Realm {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "accessor-reuse-\(name)-\(UUID())"))
        try realm.write {
            for id in 0..<count {
                let item = ARItem()
                item.id = id
                item.name = "item \(id)"
                item.score = Double(id) / 2
                realm.add(item)
                let tagged = ARTagged()
                tagged.id = id
                tagged.name = "tagged \(id)"
                realm.add(tagged)
                let derived = ARDerivedWithState()
                derived.id = id
                derived.name = "derived \(id)"
                realm.add(derived)
            }
        }
        return realm
    }

    /// The identities of the objects a loop that keeps none of them sees.
    static func identities<Element: Object>(_ results: Results<Element>) -> Set<ObjectIdentifier> {
        var seen = Set<ObjectIdentifier>()
        for object in results { seen.insert(ObjectIdentifier(object)) }
        return seen
    }

    @Test func aLoopThatKeepsNothingReusesOneAccessorAndReadsEveryRow() throws {
        let realm = try Self.realm("plain")
        var ids: [Int] = []
        var names: [String] = []
        for item in realm.objects(ARItem.self) {
            ids.append(item.id)
            names.append(item.name)
            #expect(item.score == Double(item.id) / 2)
            #expect(!item.isInvalidated)
        }
        #expect(ids == Array(0..<500))
        #expect(names == (0..<500).map { "item \($0)" })
        // The whole-table walk, a query's keys and a sorted query's keys all reuse.
        #expect(Self.identities(realm.objects(ARItem.self)).count == 1)
        #expect(Self.identities(realm.objects(ARItem.self).filter("id >= 100")).count == 1)
        #expect(Self.identities(realm.objects(ARItem.self).sorted(byKeyPath: "id", ascending: false)).count == 1)
        // So do dynamic objects (their class keeps no state either).
        #expect(Self.identities(realm.dynamicObjects("ARItem")).count == 1)
    }

    @Test func objectsKeptStronglyAreNeverMoved() throws {
        let realm = try Self.realm("strong")
        var array: [ARItem] = []
        var set: Set<ARItem> = []
        var byID: [Int: ARItem] = [:]
        var closures: [() -> String] = []
        var lists: [(Int, Results<ARItem>)] = []
        for (position, item) in realm.objects(ARItem.self).enumerated() {
            switch position % 5 {
            case 0: array.append(item)
            case 1: set.insert(item)
            case 2: byID[item.id] = item
            case 3: closures.append { item.name }
            default: lists.append((item.id, realm.objects(ARItem.self).filter("id == %@", item.id)))
            }
        }
        #expect(array.map(\.id) == Array(stride(from: 0, to: 500, by: 5)))
        #expect(set.map(\.id).sorted() == Array(stride(from: 1, to: 500, by: 5)))
        #expect(byID.allSatisfy { $0.key == $0.value.id })
        #expect(closures.map { $0() } == stride(from: 3, to: 500, by: 5).map { "item \($0)" })
        #expect(lists.allSatisfy { $0.0 == $0.1.first?.id })
        // `Array(results)`, `map` and friends keep every element.
        #expect(Array(realm.objects(ARItem.self)).map(\.id) == Array(0..<500))
        let mapped = realm.objects(ARItem.self).map { $0 }
        #expect(Set(mapped.map { ObjectIdentifier($0) }).count == 500)
        #expect(mapped.map(\.id) == Array(0..<500))
    }

    @Test func anObjectReferencedWeaklyIsNeverMoved() throws {
        let realm = try Self.realm("weak")
        // When the loop asks for the next object, the previous one is alive (the iterator holds
        // it) and weakly referenced here. Not reused, it dies and the reference reads nil; moved,
        // the reference would read the next object.
        var previous: (id: Int, object: () -> ARItem?)?
        var moved: [Int] = []
        for item in realm.objects(ARItem.self) {
            if let previous, let object = previous.object(), object.id != previous.id { moved.append(previous.id) }
            weak let reference = item
            previous = (item.id, { reference })
        }
        #expect(moved.isEmpty, "weakly referenced objects moved: \(moved.prefix(5))")
    }

    @Test func anObjectReferencedUnownedIsNeverMoved() throws {
        let realm = try Self.realm("unowned")
        // An unowned reference keeps the dead object's memory, so a new accessor cannot be at
        // its address: the next object has another identity, unless it is the same instance
        // moved.
        var previous: (identity: ObjectIdentifier, reference: () -> Void)?
        var reused = 0
        for item in realm.objects(ARItem.self) {
            if let previous, previous.identity == ObjectIdentifier(item) { reused += 1 }
            unowned let reference = item
            previous = (ObjectIdentifier(item), { _ = reference })
        }
        #expect(reused == 0)
    }

    @Test func classesWithStateOfTheirOwnGetANewAccessorPerObject() throws {
        let realm = try Self.realm("state")
        for tagged in realm.objects(ARTagged.self) {
            #expect(tagged.scratch == 0, "object \(tagged.id) carries the previous object's state")
            tagged.scratch = tagged.id + 1
            #expect(tagged.name == "tagged \(tagged.id)")
        }
        for derived in realm.objects(ARDerivedWithState.self) {
            #expect(derived.scratch.isEmpty, "object \(derived.id) carries the previous object's state")
            derived.scratch.append(derived.id)
            #expect(derived.name == "derived \(derived.id)")
        }
    }

    @Test(arguments: 0..<3)
    func loopsThatWriteAndDeleteReadTheRightRows(seed: UInt64) throws {
        let realm = try Self.realm("write-\(seed)", count: 2_000)
        var generator = SplitMix64(seed: seed)
        var expected = Dictionary(uniqueKeysWithValues: (0..<2_000).map { ($0, "item \($0)") })
        var nextID = 2_000
        for _ in 0..<3 {
            try realm.write {
                var held: [ARItem] = []
                for item in realm.objects(ARItem.self) {
                    guard !item.isInvalidated else { continue }
                    #expect(item.name == expected[item.id], "id \(item.id)")
                    switch generator.next() % 8 {
                    case 0:
                        item.name = "renamed \(item.id) \(generator.next() % 1_000)"
                        expected[item.id] = item.name
                    case 1:
                        item.name = String(repeating: "long ", count: Int(generator.next() % 400)) + "\(item.id)"
                        expected[item.id] = item.name
                    case 2:
                        expected[item.id] = nil
                        realm.delete(item)
                    case 3:
                        let added = ARItem()
                        added.id = nextID
                        added.name = "added \(nextID)"
                        expected[nextID] = added.name
                        nextID += 1
                        realm.add(added)
                    case 4:
                        held.append(item)
                    default:
                        break
                    }
                }
                for item in held where !item.isInvalidated {
                    #expect(item.name == expected[item.id], "held id \(item.id)")
                }
            }
            var seen: [Int: String] = [:]
            for item in realm.objects(ARItem.self) { seen[item.id] = item.name }
            #expect(seen == expected)
        }
    }

    @Test func aLoopThatCommitsBetweenObjectsReadsTheRowsItStartedWith() throws {
        let realm = try Self.realm("commits", count: 300)
        var seen: [Int: String] = [:]
        for item in realm.objects(ARItem.self) {
            seen[item.id] = item.name
            // The loop walks the version it started at; after a commit the handle has moved, so
            // each later object is found by key, and reads the handle's current version.
            if item.id % 50 == 0 {
                try realm.write { realm.objects(ARItem.self).filter("id == %@", item.id + 1).first?.name = "changed" }
            }
        }
        #expect(seen.count == 300)
        #expect(seen.allSatisfy { $0.value == "item \($0.key)" || ($0.value == "changed" && $0.key % 50 == 1) })
        #expect(seen.filter { $0.value == "changed" }.count == 6)
    }
}
