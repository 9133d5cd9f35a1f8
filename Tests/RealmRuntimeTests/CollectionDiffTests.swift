import Testing
import RealmRuntime
import RealmTestSupport

/// The key-sequence diff behind collection change streams, on random sequences: ascending ones
/// (the merge path), shuffled ones with moves, and lists holding an object several times.
@Suite struct CollectionDiffTests {
    /// Applies a diff the way a consumer does: deletions (descending) on the old sequence, then
    /// insertions (ascending) taken from the new one.
    static func apply(_ diff: CollectionDiff, to old: [UInt64], new: [UInt64]) -> [UInt64] {
        var result = old
        for index in diff.deletions.sorted(by: >) { result.remove(at: index) }
        for index in diff.insertions.sorted() { result.insert(new[index], at: index) }
        return result
    }

    @Test(arguments: 0..<20 as Range<UInt64>)
    func applyingTheDiffGivesTheNewSequence(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for round in 0..<50 {
            let universe = UInt64(Int.random(in: 1...40, using: &random))
            var old = (0..<universe).filter { _ in Bool.random(using: &random) }
            var new = old.filter { _ in Int.random(in: 0..<5, using: &random) > 0 } + (universe..<universe + 5).filter { _ in Bool.random(using: &random) }
            switch round % 3 {
            case 0: new.sort()                                    // ascending: the merge path
            case 1: new.shuffle(using: &random)                    // moves
            default:                                               // duplicates, as lists have
                old += old.prefix(3)
                new += new.prefix(2)
                new.shuffle(using: &random)
            }
            let modified = Set(old.filter { _ in Int.random(in: 0..<4, using: &random) == 0 })
            let diff = CollectionDiff(old: old, new: new, modified: modified)
            #expect(Self.apply(diff, to: old, new: new) == new, "\(old) -> \(new)")
            #expect(diff.deletions == diff.deletions.sorted() && diff.insertions == diff.insertions.sorted())
            // Modifications: only objects in both, not reported as inserted, and only modified ones.
            #expect(diff.modifications.allSatisfy { modified.contains(new[$0]) && !diff.insertions.contains($0) })
            if round % 3 == 0 {
                let survivors = new.indices.filter { old.contains(new[$0]) }
                #expect(diff.modifications == survivors.filter { modified.contains(new[$0]) })
            }
        }
    }

    @Test func movesAreTheFewestDeletionsAndInsertions() {
        let diff = CollectionDiff(old: [1, 2, 3, 4, 5], new: [2, 3, 4, 5, 1], modified: [3])
        #expect(diff.deletions == [0] && diff.insertions == [4] && diff.modifications == [1])
        #expect(CollectionDiff(old: [5, 6], new: [5, 6], modified: []).isEmpty)
    }

    /// Value lists by position: applying deletions then insertions and the modifications'
    /// new values to the old list gives the new one, on random edits.
    @Test(arguments: 0..<10 as Range<UInt64>)
    func valueListDiffsRebuildTheNewList(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let old = (0..<Int.random(in: 0...8, using: &random)).map { _ in ColumnValue.int(Int64.random(in: 0..<4, using: &random)) }
            var new = old
            switch Int.random(in: 0..<4, using: &random) {
            case 0: new.insert(.int(9), at: Int.random(in: 0...new.count, using: &random))
            case 1: if !new.isEmpty { new.remove(at: Int.random(in: 0..<new.count, using: &random)) }
            case 2: if !new.isEmpty { new[Int.random(in: 0..<new.count, using: &random)] = .int(7) }
            default: new.shuffle(using: &random)
            }
            let diff = CollectionDiff(oldList: old, newList: new)
            var rebuilt = old
            for index in diff.deletions.sorted(by: >) { rebuilt.remove(at: index) }
            for index in diff.insertions.sorted() { rebuilt.insert(new[index], at: index) }
            for index in diff.modifications { rebuilt[index] = new[index] }
            #expect(rebuilt == new)
            #expect(old != new || diff.isEmpty)
        }
    }

    @Test func valueSetAndMapDiffs() {
        let set = CollectionDiff(oldSet: [.int(1), .int(3)], newSet: [.int(2), .int(3)])
        #expect(set.deletions == [0] && set.insertions == [0] && set.modifications == [])
        let key = { (name: String) in ColumnValue.bytes(Array(name.utf8)) }
        let map = CollectionDiff(oldMap: [key("a"), .int(1), key("b"), .int(2)],
                                 newMap: [key("b"), .int(20), key("z"), .int(26)])
        #expect(map.deletions == [0] && map.insertions == [1] && map.modifications == [0])
    }
}
