import Foundation
import Testing
import RealmActors
import RealmTestSupport

final class LETag: Object {
    @Persisted(primaryKey: true) var id = 0
}

final class LEHolder: Object {
    @Persisted var numbers: List<Int>
    @Persisted var tags: List<LETag>
    @Persisted var tagSet: MutableSet<LETag>
}

/// Realm Swift's list editing API (`append(objectsIn:)`, `insert(contentsOf:at:)`,
/// `removeFirst(_:)`, `removeLast(_:)`, `removeSubrange`, `replaceSubrange`, `remove(atOffsets:)`,
/// `move(fromOffsets:toOffset:)`, range subscripts), checked on managed and unmanaged lists against
/// an array model, in random sequences of edits.
@Suite struct ListEditingTests {
    /// SwiftUI's `move(fromOffsets:toOffset:)`: the moved elements, in order, go before the element
    /// that was at `destination`.
    static func moved(_ array: [Int], _ offsets: IndexSet, _ destination: Int) -> [Int] {
        let kept = array.indices.filter { !offsets.contains($0) }
        return kept.filter { $0 < destination }.map { array[$0] } + offsets.map { array[$0] }
            + kept.filter { $0 >= destination }.map { array[$0] }
    }

    /// One random edit, applied to `list` and to `model` alike.
    static func edit(_ list: List<Int>, _ model: inout [Int], _ random: inout SplitMix64) {
        let count = model.count
        let low = Int.random(in: 0...count, using: &random), high = Int.random(in: low...count, using: &random)
        let fresh = (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0..<100, using: &random) }
        switch Int.random(in: 0..<9, using: &random) {
        case 0: list.append(objectsIn: fresh); model.append(contentsOf: fresh)
        case 1: list.insert(contentsOf: fresh, at: low); model.insert(contentsOf: fresh, at: low)
        case 2: list.removeFirst(high - low); model.removeFirst(high - low)
        case 3: list.removeLast(high - low); model.removeLast(high - low)
        case 4: list.removeSubrange(low..<high); model.removeSubrange(low..<high)
        case 5: list.replaceSubrange(low..<high, with: fresh); model.replaceSubrange(low..<high, with: fresh)
        case 6:
            let offsets = IndexSet((0..<count).filter { _ in Bool.random(using: &random) })
            list.remove(atOffsets: offsets)
            for offset in offsets.reversed() { model.remove(at: offset) }
        case 7:
            let offsets = IndexSet((0..<count).filter { _ in Int.random(in: 0..<3, using: &random) == 0 })
            list.move(fromOffsets: offsets, toOffset: low)
            model = moved(model, offsets, low)
        default:
            var view = list  // MutableCollection's mutating methods want a variable; a List is a reference
            view[low..<high].reverse()
            model[low..<high].reverse()
        }
    }

    @Test(arguments: 0..<8 as Range<UInt64>)
    func managedAndUnmanagedListsEditLikeArrays(seed: UInt64) throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let holder = try realm.write { realm.create(LEHolder.self) }
        let unmanaged = List<Int>()
        var model: [Int] = []
        var random = SplitMix64(seed: seed)
        for step in 0..<200 {
            var unmanagedModel = model
            var unmanagedRandom = random
            try realm.write { Self.edit(holder.numbers, &model, &random) }
            Self.edit(unmanaged, &unmanagedModel, &unmanagedRandom)
            #expect(Array(holder.numbers) == model, "seed \(seed), step \(step)")
            #expect(Array(unmanaged) == model, "seed \(seed), step \(step)")
        }
    }

    @Test func objectListsAndSetsTakeRealmSwiftsSpellings() throws {
        let realm = try Realm(configuration: Realm.Configuration(inMemoryIdentifier: UUID().uuidString))
        let holder = try realm.write { realm.create(LEHolder.self) }
        try realm.write {
            holder.tags.append(objectsIn: (0..<5).map { LETag(value: ["id": $0]) })
            holder.tagSet.insert(objectsIn: Array(holder.tags.prefix(3)))
            holder.tags.move(fromOffsets: [0, 1], toOffset: 5)
            holder.tags.removeFirst()
        }
        #expect(holder.tags.map(\.id) == [3, 4, 0, 1])
        #expect(Set(holder.tagSet.map(\.id)) == [0, 1, 2])
        #expect(realm.objects(LETag.self).count == 5, "removing from a list keeps the objects")
    }

    @Test func removingMoreThanTheListHoldsTraps() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let list = List<Int>()
            list.append(objectsIn: [1, 2])
            list.removeLast(3)
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("It is not possible to remove more objects (3) from a list than it already contains (2)"))
        }
    }
}
