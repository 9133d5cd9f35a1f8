/// The diffs of collections of values (see ``ValueCollectionChangeTracker``), in the
/// conventions of ``CollectionDiff``: deletions are indices in the old elements, insertions and
/// modifications indices in the new ones.
extension CollectionDiff {
    /// The change between two states of a list of values, by position: the elements between the
    /// common prefix and the common suffix changed. When that span has the same length in both
    /// (`list[i] = x`), its differing positions are modifications; otherwise the old span is
    /// deleted and the new one inserted (an append, an insertion or a removal reports exactly its
    /// indices).
    ///
    /// - Complexity: O(n), comparing stored values.
    package init(oldList old: [ColumnValue], newList new: [ColumnValue]) {
        self.init(old: [], new: [], modified: [])
        var prefix = 0
        while prefix < old.count && prefix < new.count && old[prefix] == new[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < old.count - prefix && suffix < new.count - prefix
                && old[old.count - 1 - suffix] == new[new.count - 1 - suffix] { suffix += 1 }
        let oldSpan = prefix..<(old.count - suffix), newSpan = prefix..<(new.count - suffix)
        if oldSpan.count == newSpan.count {
            modifications = newSpan.filter { old[$0] != new[$0] }
        } else {
            deletions = Array(oldSpan)
            insertions = Array(newSpan)
        }
    }

    /// The change between two states of a set of values (each distinct): elements that left are
    /// deletions, elements that arrived insertions; a set has no modifications.
    ///
    /// - Complexity: O(n) expected, hashing stored values.
    package init(oldSet old: [ColumnValue], newSet new: [ColumnValue]) {
        self.init(old: [], new: [], modified: [])
        let oldMembers = Set(old), newMembers = Set(new)
        deletions = old.indices.filter { !newMembers.contains(old[$0]) }
        insertions = new.indices.filter { !oldMembers.contains(new[$0]) }
    }

    /// The change between two states of a map (elements as stored: key and value alternating),
    /// as entry indices: keys removed (old entries), keys added and keys whose value changed
    /// (new entries).
    ///
    /// - Complexity: O(n) expected, hashing keys.
    package init(oldMap old: [ColumnValue], newMap new: [ColumnValue]) {
        self.init(old: [], new: [], modified: [])
        func entries(_ elements: [ColumnValue]) -> [ColumnValue: ColumnValue] {
            var entries: [ColumnValue: ColumnValue] = [:]
            for index in stride(from: 0, to: elements.count - 1, by: 2) { entries[elements[index]] = elements[index + 1] }
            return entries
        }
        let oldEntries = entries(old), newEntries = entries(new)
        deletions = stride(from: 0, to: old.count - 1, by: 2).filter { newEntries[old[$0]] == nil }.map { $0 / 2 }
        for index in stride(from: 0, to: new.count - 1, by: 2) {
            switch oldEntries[new[index]] {
            case nil: insertions.append(index / 2)
            case let value? where value != new[index + 1]: modifications.append(index / 2)
            default: break
            }
        }
    }
}
