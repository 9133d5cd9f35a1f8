/// The change from one ordered sequence of object keys to another, in the conventions of
/// ``RealmCollectionChange``: `deletions` are indices in the old sequence, `insertions` and
/// `modifications` indices in the new one, each ascending. Removing the deleted elements from
/// the old sequence and then inserting the inserted ones at their indices (ascending) gives the
/// new sequence.
///
/// An element that moved (its order relative to the others changed, as in a re-sorted result)
/// is reported as deleted at its old index and inserted at its new one; the elements that stay
/// are the longest run already in order (longest increasing subsequence, O(n log n)). Sequences
/// may hold one object several times (a list): the n-th occurrence in one sequence pairs with
/// the n-th in the other. Two ascending sequences (unsorted query results, in key order) are
/// compared by one merge pass, without hashing.
package struct CollectionDiff: Equatable, Sendable {
    package var deletions: [Int] = []
    package var insertions: [Int] = []
    package var modifications: [Int] = []

    package var isEmpty: Bool { deletions.isEmpty && insertions.isEmpty && modifications.isEmpty }

    /// The change from `old` to `new`; survivors whose key is in `modified` are modifications.
    package init(old: [UInt64], new: [UInt64], modified: Set<UInt64>) {
        if Self.isStrictlyAscending(old) && Self.isStrictlyAscending(new) {
            mergeAscending(old, new, modified)
            return
        }
        // Only the span between the common prefix and the common suffix can differ (an insert
        // into a large sorted result leaves a span of one), so match identities only there.
        var prefix = 0
        while prefix < old.count && prefix < new.count && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix && suffix < new.count - prefix
                && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        var middle = CollectionDiff()
        middle.matchByIdentity(Array(old[prefix..<old.count - suffix]), Array(new[prefix..<new.count - suffix]), modified)
        deletions = middle.deletions.map { $0 + prefix }
        insertions = middle.insertions.map { $0 + prefix }
        modifications = middle.modifications.map { $0 + prefix }
        // Survivors outside the span that were modified: found by key when they are few (a
        // linear scan per key, no hashing per element), else by checking every element.
        if !modified.isEmpty {
            let outside = { (index: Int) in index < prefix || index >= new.count - suffix }
            var found: [Int] = []
            if modified.count <= 32 {
                for key in modified {
                    var index = new.startIndex
                    while let match = new[index...].firstIndex(of: key) {
                        if outside(match) { found.append(match) }
                        index = match + 1
                    }
                }
            } else {
                found = new.indices.filter { outside($0) && modified.contains(new[$0]) }
            }
            modifications = (modifications + found).sorted()
        }
    }

    private init() {}

    private static func isStrictlyAscending(_ keys: [UInt64]) -> Bool {
        var index = 1
        while index < keys.count {
            if keys[index - 1] >= keys[index] { return false }
            index += 1
        }
        return true
    }

    private mutating func mergeAscending(_ old: [UInt64], _ new: [UInt64], _ modified: Set<UInt64>) {
        var (i, j) = (0, 0)
        while i < old.count || j < new.count {
            if j == new.count || (i < old.count && old[i] < new[j]) {
                deletions.append(i); i += 1
            } else if i == old.count || new[j] < old[i] {
                insertions.append(j); j += 1
            } else {
                i += 1; j += 1
            }
        }
        // Survivors that were modified: a binary search per modified key (usually few), not a
        // hash lookup per survivor.
        modifications = modified.compactMap { key in old.ascendingIndex(of: key) == nil ? nil : new.ascendingIndex(of: key) }.sorted()
    }

    private struct Identity: Hashable {
        let key: UInt64
        let occurrence: Int
    }

    private static func identities(_ keys: [UInt64]) -> [Identity] {
        var seen: [UInt64: Int] = [:]
        return keys.map { key in
            let occurrence = seen[key, default: 0]
            seen[key] = occurrence + 1
            return Identity(key: key, occurrence: occurrence)
        }
    }

    private mutating func matchByIdentity(_ old: [UInt64], _ new: [UInt64], _ modified: Set<UInt64>) {
        var oldIndex: [Identity: Int] = [:]
        oldIndex.reserveCapacity(old.count)
        for (index, identity) in Self.identities(old).enumerated() { oldIndex[identity] = index }
        // Survivors in new order: (new index, old index).
        var survivors: [(new: Int, old: Int)] = []
        var kept = Array(repeating: false, count: old.count)
        for (index, identity) in Self.identities(new).enumerated() {
            if let previous = oldIndex[identity] {
                survivors.append((index, previous))
                kept[previous] = true
            } else {
                insertions.append(index)
            }
        }
        let inOrder = Self.longestIncreasingRun(survivors.map(\.old))
        var moved: [Int] = []
        for (position, survivor) in survivors.enumerated() {
            if inOrder[position] {
                if !modified.isEmpty && modified.contains(new[survivor.new]) { modifications.append(survivor.new) }
            } else {
                moved.append(survivor.new)
                kept[survivor.old] = false
            }
        }
        deletions = kept.indices.filter { !kept[$0] }
        insertions = (insertions + moved).sorted()
    }

    /// Marks the elements of one longest strictly increasing subsequence of `values`.
    private static func longestIncreasingRun(_ values: [Int]) -> [Bool] {
        var tails: [Int] = []            // index into `values` of the smallest tail of each length
        var previous = Array(repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var marked = Array(repeating: false, count: values.count)
        var index = tails.last ?? -1
        while index >= 0 {
            marked[index] = true
            index = previous[index]
        }
        return marked
    }
}
