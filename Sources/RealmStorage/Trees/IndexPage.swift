#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A page of an index tree: sorted variable-length byte keys in a slotted layout.
///
/// Slots grow up from offset 24, keys grow down from the end of the page (`heapStart` in the
/// header's `aux`). A slot is `(key offset u16, key length u16)` followed, in inner pages, by the
/// child's page, transaction and subtree count (24 more bytes). Keys compare as unsigned bytes
/// (`memcmp`), which is why index keys are encoded order-preservingly (``IndexKey``).
///
/// In an inner page, entry 0's key is ignored by lookups (it acts as minus infinity): entry `i`
/// leads to keys `>= key(i)` and `< key(i + 1)`.
package struct IndexPage {
    static let leafSlotSize = 4
    static let innerSlotSize = 28
    /// The longest key an index accepts; at least seven fit in any page.
    package static let maximumKeyLength = 480

    package let base: UnsafeRawPointer

    @inline(__always) package init(_ base: UnsafeRawPointer) { self.base = base }

    @inline(__always) var isInner: Bool { base.pageKind == .indexInner }
    @inline(__always) var slotSize: Int { isInner ? Self.innerSlotSize : Self.leafSlotSize }
    @inline(__always) package var count: Int { base.pageCount16 }
    @inline(__always) var heapStart: Int { Int(base.u32(PageLayout.auxOffset)) }
    @inline(__always) func slot(_ index: Int) -> Int { PageLayout.headerSize + index * slotSize }

    @inline(__always) package func key(_ index: Int) -> UnsafeRawBufferPointer {
        let slot = self.slot(index)
        let offset = Int(base.u16(slot))
        let length = Int(base.u16(slot + 2))
        // A damaged slot must not send a read past the page.
        guard offset + length <= PageLayout.pageSize else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: base + offset, count: length)
    }

    @inline(__always) package func child(_ index: Int) -> PageNumber { base.u64(slot(index) + 4) }
    @inline(__always) package func childTransaction(_ index: Int) -> TransactionID { base.u64(slot(index) + 12) }
    @inline(__always) package func childCount(_ index: Int) -> UInt64 { base.u64(slot(index) + 20) }

    /// Unsigned lexicographic comparison.
    @inline(__always) static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = min(a.count, b.count)
        if common > 0 {
            let result = memcmp(a.baseAddress!, b.baseAddress!, common)
            if result != 0 { return Int(result) }
        }
        return a.count - b.count
    }

    /// Leaf: the first index whose key is `>= key`, and whether it is equal.
    package func find(_ key: UnsafeRawBufferPointer) -> (index: Int, found: Bool) {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) >> 1
            if Self.compare(self.key(mid), key) < 0 { low = mid + 1 } else { high = mid }
        }
        return (low, low < count && Self.compare(self.key(low), key) == 0)
    }

    /// Inner: the entry whose subtree holds `key`.
    package func route(_ key: UnsafeRawBufferPointer) -> Int {
        var low = 1
        var high = count
        while low < high {
            let mid = (low + high) >> 1
            if Self.compare(self.key(mid), key) <= 0 { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    /// Where the last insert into this page went (header flags byte; 255 = unknown), so a split
    /// can tell a run of ascending inserts from random ones.
    var lastInsertPosition: Int { Int(base.u8(PageLayout.flagsOffset)) }

    /// Bytes used by slots and keys.
    var fill: Int { (0..<count).reduce(0) { $0 + slotSize + key($1).count } }

    /// The geometry a reader relies on, O(1): slots end before the heap, the heap inside the page.
    /// Key slots are bounded where they are read (``key(_:)``).
    var isWellFormed: Bool {
        PageLayout.headerSize + count * slotSize <= heapStart && heapStart <= PageLayout.pageSize
    }

    /// Also every key slot: O(entries), for integrity checks.
    var isWellFormedDeep: Bool {
        guard isWellFormed else { return false }
        for index in 0..<count {
            let offset = Int(base.u16(slot(index)))
            let length = Int(base.u16(slot(index) + 2))
            guard offset >= heapStart || length == 0, offset + length <= PageLayout.pageSize else { return false }
        }
        return true
    }
}

/// Mutating access to an index page owned by the current write transaction.
struct IndexPageWriter {
    let base: UnsafeMutableRawPointer
    var page: IndexPage { IndexPage(UnsafeRawPointer(base)) }

    init(_ base: UnsafeMutableRawPointer) { self.base = base }

    static func initialize(_ base: UnsafeMutableRawPointer, inner: Bool, transaction: TransactionID) -> IndexPageWriter {
        base.initializePageHeader(kind: inner ? .indexInner : .indexLeaf, transaction: transaction)
        base.setU8(PageLayout.flagsOffset, 255)
        base.setU32(PageLayout.auxOffset, UInt32(PageLayout.pageSize))
        return IndexPageWriter(base)
    }

    private var freeSpace: Int { page.heapStart - PageLayout.headerSize - page.count * page.slotSize }

    /// Inserts an entry at `index`; false if it does not fit even after compaction.
    func insert(at index: Int, key: UnsafeRawBufferPointer, child: (PageNumber, TransactionID, UInt64)? = nil) -> Bool {
        let page = self.page
        let needed = page.slotSize + key.count
        if freeSpace < needed {
            guard PageLayout.pageSize - PageLayout.headerSize - page.fill >= needed else { return false }
            compact()
        }
        let count = page.count
        let slot = page.slot(index)
        (base + slot + page.slotSize).copyMemory(from: base + slot, byteCount: (count - index) * page.slotSize)
        let offset = page.heapStart - key.count
        if key.count > 0 { (base + offset).copyMemory(from: key.baseAddress!, byteCount: key.count) }
        base.setU32(PageLayout.auxOffset, UInt32(offset))
        base.setU16(slot, UInt16(offset))
        base.setU16(slot + 2, UInt16(key.count))
        if let child { setChild(index, child.0, child.1, child.2) }
        base.setU16(PageLayout.countOffset, UInt16(count + 1))
        base.setU8(PageLayout.flagsOffset, UInt8(min(index, 255)))
        return true
    }

    func setChild(_ index: Int, _ page: PageNumber, _ transaction: TransactionID, _ count: UInt64) {
        let slot = self.page.slot(index)
        base.setU64(slot + 4, page)
        base.setU64(slot + 12, transaction)
        base.setU64(slot + 20, count)
    }

    func remove(at index: Int) {
        let page = self.page
        let count = page.count
        let slot = page.slot(index)
        (base + slot).copyMemory(from: base + slot + page.slotSize, byteCount: (count - index - 1) * page.slotSize)
        base.setU16(PageLayout.countOffset, UInt16(count - 1))
        if count == 1 { base.setU32(PageLayout.auxOffset, UInt32(PageLayout.pageSize)) }
    }

    /// Rewrites the key heap without holes.
    func compact() {
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: 16)
        defer { scratch.deallocate() }
        scratch.copyMemory(from: base, byteCount: PageLayout.pageSize)
        let old = IndexPage(UnsafeRawPointer(scratch))
        var heap = PageLayout.pageSize
        for index in 0..<old.count {
            let key = old.key(index)
            heap -= key.count
            if key.count > 0 { (base + heap).copyMemory(from: key.baseAddress!, byteCount: key.count) }
            base.setU16(old.slot(index), UInt16(heap))
        }
        base.setU32(PageLayout.auxOffset, UInt32(heap))
    }

    /// Moves entries `from..<count` to `other` (an empty page of the same kind).
    func moveTail(from: Int, to other: IndexPageWriter) {
        append(range: from..<page.count, of: page, to: other)
        base.setU16(PageLayout.countOffset, UInt16(from))
        compact()
    }

    /// Appends all of `other`'s entries (the caller checked they fit).
    func append(contentsOf other: IndexPage) {
        append(range: 0..<other.count, of: other, to: self)
    }

    private func append(range: Range<Int>, of source: IndexPage, to target: IndexPageWriter) {
        for index in range {
            let child = source.isInner ? (source.child(index), source.childTransaction(index), source.childCount(index)) : nil
            let fits = target.insert(at: target.page.count, key: source.key(index), child: child)
            precondition(fits, "moved entries always fit")
        }
    }
}
