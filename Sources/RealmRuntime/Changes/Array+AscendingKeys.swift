/// Binary search over object keys in ascending order — the order of an unsorted query over a
/// table, which change tracking and diffing search into by key.
extension Array where Element == UInt64 {
    /// The first index at or after `start` whose key is not less than `key`: where `key` is, or
    /// would be inserted. The keys must be ascending. O(log n).
    func insertionIndex(of key: UInt64, from start: Int = 0) -> Int {
        var (low, high) = (start, count)
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of `key` in these ascending keys, or nil. O(log n).
    func ascendingIndex(of key: UInt64) -> Int? {
        let index = insertionIndex(of: key)
        return index < count && self[index] == key ? index : nil
    }
}
