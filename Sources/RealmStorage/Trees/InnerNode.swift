/// A B+tree branch page: sorted entries `(key, child page, child transaction, child count)`.
///
/// Entry `i` leads to the keys `>= key[i]` and `< key[i + 1]`; `key[0]` acts as minus infinity
/// for lookups. Carrying the child's *transaction* lets recovery tell a page that was really
/// written by a commit from stale bytes at the same page number; carrying the child's *count*
/// makes a tree's size and positional access O(log n).
///
/// Layout: the page header (`count` = entries), then entries of 32 bytes from offset 24.
package struct InnerNode {
    package static let entrySize = 32
    package static let capacity = (PageLayout.pageSize - PageLayout.headerSize) / entrySize  // 127

    package let base: UnsafeRawPointer

    @inline(__always) package init(_ base: UnsafeRawPointer) { self.base = base }

    @inline(__always) package var count: Int { base.pageCount16 }

    @inline(__always) static func offset(_ index: Int) -> Int { PageLayout.headerSize + index * entrySize }

    @inline(__always) package func key(_ index: Int) -> UInt64 { base.u64(Self.offset(index)) }
    @inline(__always) package func child(_ index: Int) -> PageNumber { base.u64(Self.offset(index) + 8) }
    @inline(__always) package func childTransaction(_ index: Int) -> TransactionID { base.u64(Self.offset(index) + 16) }
    @inline(__always) package func childCount(_ index: Int) -> UInt64 { base.u64(Self.offset(index) + 24) }

    /// The entry whose subtree would hold `key`: the last entry with `key(i) <= key`, or 0.
    @inline(__always) package func route(_ key: UInt64) -> Int {
        var low = 1
        var high = count
        while low < high {
            let mid = (low + high) >> 1
            if self.key(mid) <= key { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }
}

/// Mutating access to an inner page owned by the current write transaction.
package struct InnerNodeWriter {
    package let base: UnsafeMutableRawPointer
    package var node: InnerNode { InnerNode(UnsafeRawPointer(base)) }

    package init(_ base: UnsafeMutableRawPointer) { self.base = base }

    package func setCount(_ count: Int) { base.setU16(PageLayout.countOffset, UInt16(count)) }

    package func set(_ index: Int, key: UInt64, child: PageNumber, transaction: TransactionID, count: UInt64) {
        let offset = InnerNode.offset(index)
        base.setU64(offset, key)
        base.setU64(offset + 8, child)
        base.setU64(offset + 16, transaction)
        base.setU64(offset + 24, count)
    }

    package func setKey(_ index: Int, _ key: UInt64) { base.setU64(InnerNode.offset(index), key) }

    package func setChild(_ index: Int, page: PageNumber, transaction: TransactionID, count: UInt64) {
        let offset = InnerNode.offset(index)
        base.setU64(offset + 8, page)
        base.setU64(offset + 16, transaction)
        base.setU64(offset + 24, count)
    }

    /// Opens a gap at `index` (entries from `index` move one slot right).
    package func insertGap(at index: Int) {
        let count = node.count
        precondition(count < InnerNode.capacity)
        let from = InnerNode.offset(index)
        (base + from + InnerNode.entrySize).copyMemory(from: base + from, byteCount: (count - index) * InnerNode.entrySize)
        setCount(count + 1)
    }

    package func remove(at index: Int) {
        let count = node.count
        let from = InnerNode.offset(index + 1)
        (base + from - InnerNode.entrySize).copyMemory(from: base + from, byteCount: (count - index - 1) * InnerNode.entrySize)
        setCount(count - 1)
    }

    /// Moves entries `from..<count` to the start of `other` (an empty node), keeping `0..<from`.
    package func moveTail(from: Int, to other: InnerNodeWriter) {
        let count = node.count
        let moved = count - from
        other.base.advanced(by: PageLayout.headerSize)
            .copyMemory(from: base + InnerNode.offset(from), byteCount: moved * InnerNode.entrySize)
        other.setCount(moved)
        setCount(from)
    }

    /// Appends all of `other`'s entries (the caller checked they fit).
    package func append(contentsOf other: InnerNode) {
        let count = node.count
        (base + InnerNode.offset(count)).copyMemory(from: other.base + PageLayout.headerSize,
                                                    byteCount: other.count * InnerNode.entrySize)
        setCount(count + other.count)
    }
}
