import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class CPItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var count = 0
    @Persisted var score = 0.0
    @Persisted var text = ""
    @Persisted(indexed: true) var tag = 0
}

final class CPAddress: EmbeddedObject {
    @Persisted var city = ""
}

final class CPOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var address: CPAddress?
}

/// An object remembers where its row is (leaf and row) until something may have moved rows; a
/// value written in place moves nothing, so positions survive it (`Realm.positionStamp`), and a
/// loop over `objects(…)` inside a write finds each next object from the previous one. These
/// tests write in every way that does or does not move rows — in place, growing strings until
/// leaves rebuild and split, spilling to overflow, indexed values, inserts, deletes — while
/// holding on to objects read before, and check every read against a model.
@Suite struct CachedPositionTests {
    struct Model: Equatable {
        var count: Int
        var score: Double
        var text: String
        var tag: Int
    }

    static func read(_ item: CPItem) -> Model { Model(count: item.count, score: item.score, text: item.text, tag: item.tag) }

    @Test(arguments: 0..<4)
    func heldObjectsReadTheirOwnRowsThroughEveryKindOfWrite(seed: UInt64) throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "cached-positions-\(seed)-\(UUID())"))
        var generator = SplitMix64(seed: seed)
        var model: [Int: Model] = [:]
        try realm.write {
            for id in 0..<2_000 {
                let item = CPItem()
                item.id = id
                item.text = "item \(id)"
                realm.add(item)
                model[id] = Model(count: 0, score: 0, text: "item \(id)", tag: 0)
            }
        }
        var nextID = 2_000
        for _ in 0..<3 {
            try realm.write {
                var held: [CPItem] = []
                for item in realm.objects(CPItem.self) {
                    guard !item.isInvalidated else { continue }  // deleted earlier in this loop
                    #expect(Self.read(item) == model[item.id], "id \(item.id)")
                    switch generator.next() % 10 {
                    case 0...3:  // in place: nothing moves
                        item.count += 1
                        item.score = Double(generator.next() % 1_000) / 8
                    case 4:  // a longer or shorter string: leaves rebuild, split, spill to overflow
                        let length = generator.next() % 8 == 0 ? Int(generator.next() % 9_000) : Int(generator.next() % 300)
                        item.text = String(repeating: Character(UnicodeScalar(UInt8(97 + generator.next() % 26))), count: length)
                    case 5:  // an indexed value: the index tree changes, the table does not
                        item.tag = Int(generator.next() % 50)
                    case 6:  // a new object, at the end of the table
                        let added = CPItem()
                        added.id = nextID
                        added.text = "added \(nextID)"
                        realm.add(added)
                        model[nextID] = Model(count: 0, score: 0, text: "added \(nextID)", tag: 0)
                        nextID += 1
                    case 7:  // an object held from earlier in the loop is deleted
                        if !held.isEmpty {
                            let victim = held.remove(at: Int(generator.next() % UInt64(held.count)))
                            if !victim.isInvalidated {
                                model[victim.id] = nil
                                realm.delete(victim)
                            }
                        }
                    default: break
                    }
                    if !item.isInvalidated {
                        model[item.id] = Self.read(item)
                        held.append(item)
                    }
                    // Objects read earlier in the loop still read their own rows.
                    for _ in 0..<3 where !held.isEmpty {
                        let other = held[Int(generator.next() % UInt64(held.count))]
                        guard !other.isInvalidated else { continue }
                        #expect(Self.read(other) == model[other.id], "held id \(other.id)")
                    }
                }
            }
            #expect(realm.objects(CPItem.self).count == model.count)
            for item in realm.objects(CPItem.self) { #expect(Self.read(item) == model[item.id], "after commit, id \(item.id)") }
            for tag in 0..<50 {
                #expect(realm.objects(CPItem.self).where { $0.tag == tag }.count == model.values.filter { $0.tag == tag }.count)
            }
        }
    }

    /// The common loop: one property of every object written in place, inside the write that
    /// iterates them; every value lands on its own object.
    @Test func aWriteLoopOverAllObjectsWritesEachItsOwnValue() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "cached-loop-\(UUID())"))
        try realm.write {
            for id in 0..<5_000 {
                let item = CPItem()
                item.id = id
                realm.add(item)
            }
        }
        try realm.write {
            for item in realm.objects(CPItem.self) { item.score = Double(item.id) * 0.5 + 1 }
        }
        var checked = 0
        for item in realm.objects(CPItem.self) {
            #expect(item.score == Double(item.id) * 0.5 + 1)
            checked += 1
        }
        #expect(checked == 5_000)
    }

    /// Replacing or clearing an embedded object deletes the old one inside the property write
    /// (its table's later rows shift), which must move every held embedded object's position.
    @Test func replacingAnEmbeddedObjectMovesTheOthers() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: "cached-embedded-\(UUID())"))
        try realm.write {
            for id in 0..<300 {
                let owner = CPOwner()
                owner.id = id
                owner.address = CPAddress()
                owner.address!.city = "city \(id)"
                realm.add(owner)
            }
        }
        try realm.write {
            let owners = Array(realm.objects(CPOwner.self))
            let held = owners.map { $0.address! }
            for address in held { _ = address.city }  // every position known
            var cities = (0..<300).map { "city \($0)" }
            for id in stride(from: 0, to: 300, by: 7) {
                if id % 2 == 0 {  // cleared: the deletion is the property write's only edit
                    owners[id].address = nil
                } else {
                    let replacement = CPAddress()
                    replacement.city = "moved \(id)"
                    owners[id].address = replacement
                }
                cities[id] = "moved \(id)"
                for other in stride(from: 1, to: 300, by: 5) where other % 7 != 0 || other > id {
                    #expect(held[other].city == cities[other], "owner \(other) after replacing \(id)")
                }
            }
        }
    }
}
