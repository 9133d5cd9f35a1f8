/// A B+tree leaf holding `UInt64` keys and byte-string values: a slotted page.
///
/// Slots (12 bytes each: key, value offset, value length) grow up from offset 24 in key order;
/// value bytes grow down from the end of the page, starting at `heapStart` (header `aux`).
/// A value longer than ``maximumInlineLength`` lives in an overflow run; its slot's length is
/// ``overflowMarker`` and its heap bytes are `(first page, run transaction, byte length)`.
///
/// Deleting a value leaves a hole in the heap; an insert that does not fit compacts the page
/// first if that makes room.
package struct ValueLeaf {
    package static let slotSize = 12
    package static let slotsOffset = PageLayout.headerSize
    /// Values up to a quarter page stay in the leaf, so a leaf always holds at least 3 entries.
    package static let maximumInlineLength = 1024
    package static let overflowMarker: UInt16 = 0xFFFF
    package static let overflowReferenceSize = OverflowReference.size
    /// The most slots that fit in a page; a larger count in a page header means damage.
    package static let maximumCount = (PageLayout.pageSize - slotsOffset) / slotSize

    package let base: UnsafeRawPointer

    @inline(__always) package init(_ base: UnsafeRawPointer) { self.base = base }

    @inline(__always) package var count: Int { base.pageCount16 }
    @inline(__always) var heapStart: Int { Int(base.u32(PageLayout.auxOffset)) }

    @inline(__always) static func slot(_ index: Int) -> Int { slotsOffset + index * slotSize }

    @inline(__always) package func key(_ index: Int) -> UInt64 { base.u64(Self.slot(index)) }
    @inline(__always) func valueOffset(_ index: Int) -> Int { Int(base.u16(Self.slot(index) + 8)) }
    @inline(__always) func storedLength(_ index: Int) -> UInt16 { base.u16(Self.slot(index) + 10) }
    @inline(__always) package func isOverflow(_ index: Int) -> Bool { storedLength(index) == Self.overflowMarker }

    /// Bytes the entry occupies in the heap.
    @inline(__always) func heapBytes(_ index: Int) -> Int {
        isOverflow(index) ? Self.overflowReferenceSize : Int(storedLength(index))
    }

    /// The overflow run of entry `index` (only when `isOverflow(index)`).
    package func overflow(_ index: Int) -> OverflowReference {
        OverflowReference(base + valueOffset(index))
    }

    /// The inline bytes of entry `index` (only when `!isOverflow(index)`).
    @inline(__always) package func inlineValue(_ index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + valueOffset(index), count: Int(storedLength(index)))
    }

    /// The index of `key`, or where it would be inserted, and whether it is present.
    @inline(__always) package func find(_ key: UInt64) -> (index: Int, found: Bool) {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) >> 1
            if self.key(mid) < key { low = mid + 1 } else { high = mid }
        }
        return (low, low < count && self.key(low) == key)
    }

    /// Bytes used by live heap values.
    var liveHeapBytes: Int { (0..<count).reduce(0) { $0 + heapBytes($1) } }

    /// Free bytes after a compaction.
    package var reclaimableSpace: Int {
        PageLayout.pageSize - Self.slotsOffset - count * Self.slotSize - liveHeapBytes
    }

    /// Checks the structure a reader relies on, so that a damaged page is reported, not followed.
    package func isWellFormed() -> Bool {
        let count = self.count
        let slotsEnd = Self.slotsOffset + count * Self.slotSize
        guard slotsEnd <= heapStart, heapStart <= PageLayout.pageSize else { return false }
        for index in 0..<count {
            let offset = valueOffset(index)
            guard offset >= heapStart, offset + heapBytes(index) <= PageLayout.pageSize else { return false }
            if index > 0 && key(index - 1) >= key(index) { return false }
        }
        return true
    }
}

/// Mutating access to a leaf owned by the current write transaction.
package struct ValueLeafWriter {
    package let base: UnsafeMutableRawPointer
    package var leaf: ValueLeaf { ValueLeaf(UnsafeRawPointer(base)) }

    package init(_ base: UnsafeMutableRawPointer) { self.base = base }

    /// Formats `base` as an empty leaf.
    package static func initialize(_ base: UnsafeMutableRawPointer, transaction: TransactionID) -> ValueLeafWriter {
        base.initializePageHeader(kind: .leaf, transaction: transaction)
        base.setU32(PageLayout.auxOffset, UInt32(PageLayout.pageSize))
        return ValueLeafWriter(base)
    }

    private func setCount(_ count: Int) { base.setU16(PageLayout.countOffset, UInt16(count)) }
    private func setHeapStart(_ start: Int) { base.setU32(PageLayout.auxOffset, UInt32(start)) }

    /// Free bytes between the slots and the heap, without compacting.
    var contiguousSpace: Int { leaf.heapStart - ValueLeaf.slotsOffset - leaf.count * ValueLeaf.slotSize }

    /// Inserts a new entry at `index` (keys stay sorted: the caller found `index` with `find`).
    /// `heapBytes` is the inline value or an overflow reference; returns false when it does not fit.
    package func insert(at index: Int, key: UInt64, stored: UnsafeRawBufferPointer, isOverflow: Bool) -> Bool {
        let needed = stored.count + ValueLeaf.slotSize
        if contiguousSpace < needed {
            guard leaf.reclaimableSpace >= needed else { return false }
            compact()
        }
        let count = leaf.count
        let slot = ValueLeaf.slot(index)
        (base + slot + ValueLeaf.slotSize).copyMemory(from: base + slot, byteCount: (count - index) * ValueLeaf.slotSize)
        let offset = leaf.heapStart - stored.count
        if stored.count > 0 { (base + offset).copyMemory(from: stored.baseAddress!, byteCount: stored.count) }
        setHeapStart(offset)
        base.setU64(slot, key)
        base.setU16(slot + 8, UInt16(offset))
        base.setU16(slot + 10, isOverflow ? ValueLeaf.overflowMarker : UInt16(stored.count))
        setCount(count + 1)
        return true
    }

    /// Removes entry `index`; its heap bytes become a hole until the next compaction.
    package func remove(at index: Int) {
        let count = leaf.count
        let slot = ValueLeaf.slot(index)
        (base + slot).copyMemory(from: base + slot + ValueLeaf.slotSize,
                                 byteCount: (count - index - 1) * ValueLeaf.slotSize)
        setCount(count - 1)
        if count == 1 { setHeapStart(PageLayout.pageSize) }
    }

    /// Rewrites the heap without holes, preserving slot order.
    package func compact() {
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: 16)
        defer { scratch.deallocate() }
        scratch.copyMemory(from: base, byteCount: PageLayout.pageSize)
        let old = ValueLeaf(UnsafeRawPointer(scratch))
        var heap = PageLayout.pageSize
        for index in 0..<old.count {
            let bytes = old.heapBytes(index)
            heap -= bytes
            (base + heap).copyMemory(from: scratch + old.valueOffset(index), byteCount: bytes)
            base.setU16(ValueLeaf.slot(index) + 8, UInt16(heap))
        }
        setHeapStart(heap)
    }

    /// Moves entries `from..<count` into `other` (an empty leaf), then compacts this one.
    package func moveTail(from: Int, to other: ValueLeafWriter) {
        let source = leaf
        for index in from..<source.count {
            let stored = UnsafeRawBufferPointer(start: source.base + source.valueOffset(index), count: source.heapBytes(index))
            let fits = other.insert(at: other.leaf.count, key: source.key(index), stored: stored, isOverflow: source.isOverflow(index))
            precondition(fits, "a split half always fits an empty leaf")
        }
        setCount(from)
        compact()
    }

    /// Appends every entry of `other` (all keys greater than this leaf's; the caller checked the fit).
    package func append(contentsOf other: ValueLeaf) {
        for index in 0..<other.count {
            let stored = UnsafeRawBufferPointer(start: other.base + other.valueOffset(index), count: other.heapBytes(index))
            let fits = insert(at: leaf.count, key: other.key(index), stored: stored, isOverflow: other.isOverflow(index))
            precondition(fits, "merge was checked to fit")
        }
    }
}
