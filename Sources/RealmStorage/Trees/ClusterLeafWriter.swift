/// In-place edits of a cluster owned by the current write transaction: the fast path.
///
/// Each method returns `false` when the edit needs a different page geometry (no spare capacity,
/// a key or integer outside its frame of reference, a heap that is full even after compaction, a
/// leaf with fewer columns than the table); the caller then rebuilds through ``ClusterBuilder``.
struct ClusterLeafWriter {
    let base: UnsafeMutableRawPointer
    var leaf: ClusterLeaf { ClusterLeaf(UnsafeRawPointer(base)) }

    init(_ base: UnsafeMutableRawPointer) { self.base = base }

    // MARK: Storing one value

    /// Writes one cell of `row` (the caller made sure it fits): data, null bit, heap bytes.
    static func store(_ cell: ClusterBuilder.Cell, in page: UnsafeMutableRawPointer, row: Int, kind: ColumnSpec.Kind,
                      width: Int, dataOffset: Int, nullOffset: Int, heapStart: inout Int) {
        if nullOffset != 0 { setBit(page, nullOffset, row, cell == .null) }
        switch cell {
        case .null:
            if kind == .bool { setBit(page, dataOffset, row, false) }
            if kind == .bytes { page.setU32(dataOffset + row * 4, 0) }
        case .int(let value):
            FrameOfReference.store(UInt64(bitPattern: value), in: page, dataOffset, width: width, row: row)
        case .bool(let value): setBit(page, dataOffset, row, value)
        case .float(let value): page.setU32(dataOffset + row * 4, value.bitPattern)
        case .double(let value): page.setU64(dataOffset + row * 8, value.bitPattern)
        case .fixed(let bytes):
            bytes.withUnsafeBytes { (page + dataOffset + row * width).copyMemory(from: $0.baseAddress!, byteCount: width) }
        case .inline(let bytes):
            heapStart -= bytes.count
            if !bytes.isEmpty {
                bytes.withUnsafeBytes { (page + heapStart).copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
            }
            page.setU16(dataOffset + row * 4, UInt16(heapStart))
            page.setU16(dataOffset + row * 4 + 2, UInt16(bytes.count))
        case .overflow(let reference):
            heapStart -= OverflowReference.size
            reference.withBytes { (page + heapStart).copyMemory(from: $0.baseAddress!, byteCount: OverflowReference.size) }
            page.setU16(dataOffset + row * 4, UInt16(heapStart))
            page.setU16(dataOffset + row * 4 + 2, ClusterLeaf.overflowMarker)
        }
    }

    static func setBit(_ page: UnsafeMutableRawPointer, _ offset: Int, _ index: Int, _ value: Bool) {
        let byte = offset + index >> 3
        let mask = UInt8(1) << UInt8(index & 7)
        let old = UnsafeRawPointer(page).u8(byte)
        page.setU8(byte, value ? old | mask : old & ~mask)
    }

    /// Whether `cell` can be stored in column `column` as the page is laid out now.
    private func fitsWidth(_ cell: ClusterBuilder.Cell, _ column: Int) -> Bool {
        switch cell {
        case .null: return leaf.nullOffset(column) != 0
        case .int(let value):
            return FrameOfReference.fits(UInt64(bitPattern: value), leaf.base, leaf.dataOffset(column), width: leaf.width(column))
        default: return true
        }
    }

    private var freeHeapSpace: Int {
        leaf.heapStart - leaf.fixedBytes(capacity: leaf.capacity)
    }

    /// Makes `bytes` contiguous heap bytes available, compacting if that helps.
    private func reserveHeap(_ bytes: Int) -> Bool {
        guard bytes > 0 else { return true }
        if freeHeapSpace >= bytes { return true }
        let holes = leaf.size - leaf.heapStart - leaf.liveHeapBytes
        guard freeHeapSpace + holes >= bytes else { return false }
        compactHeap()
        return freeHeapSpace >= bytes
    }

    /// Rewrites the heap without holes.
    func compactHeap() {
        let size = leaf.size
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { scratch.deallocate() }
        scratch.copyMemory(from: base, byteCount: size)
        let old = ClusterLeaf(UnsafeRawPointer(scratch))
        var heap = size
        for column in 0..<old.columnCount where old.kind(column) == .bytes {
            for row in 0..<old.count where !old.isNull(row, column) {
                let (offset, length) = old.slot(row, column)
                let size = length == ClusterLeaf.overflowMarker ? OverflowReference.size : Int(length)
                heap -= size
                (base + heap).copyMemory(from: scratch + offset, byteCount: size)
                base.setU16(old.dataOffset(column) + row * 4, UInt16(heap))
            }
        }
        base.setU32(PageLayout.auxOffset, UInt32(heap))
    }

    // MARK: Row edits

    /// Inserts a row at `index` if the layout allows it without a rebuild.
    func insert(at index: Int, key: UInt64, cells: [ClusterBuilder.Cell]) -> Bool {
        let leaf = self.leaf
        guard leaf.count < leaf.capacity, leaf.columnCount == cells.count,
              leaf.canHoldKey(key),
              cells.indices.allSatisfy({ fitsWidth(cells[$0], $0) }),
              reserveHeap(cells.reduce(0) { $0 + $1.heapBytes })
        else { return false }
        let count = leaf.count
        FrameOfReference.shift(base, leaf.keysOffset, width: leaf.keyWidth, from: index, count: count, up: true)
        FrameOfReference.store(key, in: base, leaf.keysOffset, width: leaf.keyWidth, row: index)
        var heapStart = leaf.heapStart
        for column in cells.indices {
            let kind = leaf.kind(column)!
            let width = leaf.width(column)
            let dataOffset = leaf.dataOffset(column)
            if kind == .bool {
                shiftBitsUp(dataOffset, from: index, count: count)
            } else if kind == .int {
                FrameOfReference.shift(base, dataOffset, width: width, from: index, count: count, up: true)
            } else if width > 0 {
                (base + dataOffset + (index + 1) * width)
                    .copyMemory(from: base + dataOffset + index * width, byteCount: (count - index) * width)
            }
            if leaf.nullOffset(column) != 0 { shiftBitsUp(leaf.nullOffset(column), from: index, count: count) }
            Self.store(cells[column], in: base, row: index, kind: kind, width: width, dataOffset: dataOffset,
                       nullOffset: leaf.nullOffset(column), heapStart: &heapStart)
        }
        base.setU32(PageLayout.auxOffset, UInt32(heapStart))
        base.setU16(PageLayout.countOffset, UInt16(count + 1))
        return true
    }

    /// Replaces one value if the layout allows it without a rebuild. The old heap bytes become a hole.
    func update(row: Int, column: Int, cell: ClusterBuilder.Cell) -> Bool {
        let leaf = self.leaf
        guard column < leaf.columnCount, fitsWidth(cell, column), reserveHeap(cell.heapBytes) else { return false }
        var heapStart = leaf.heapStart
        Self.store(cell, in: base, row: row, kind: leaf.kind(column)!, width: leaf.width(column),
                   dataOffset: leaf.dataOffset(column), nullOffset: leaf.nullOffset(column), heapStart: &heapStart)
        base.setU32(PageLayout.auxOffset, UInt32(heapStart))
        return true
    }

    /// Removes row `index`; its heap bytes become a hole.
    func remove(at index: Int) {
        let leaf = self.leaf
        let count = leaf.count
        FrameOfReference.shift(base, leaf.keysOffset, width: leaf.keyWidth, from: index, count: count, up: false)
        for column in 0..<leaf.columnCount {
            let width = leaf.width(column)
            let dataOffset = leaf.dataOffset(column)
            if leaf.kind(column) == .bool {
                shiftBitsDown(dataOffset, from: index, count: count)
            } else if leaf.kind(column) == .int {
                FrameOfReference.shift(base, dataOffset, width: width, from: index, count: count, up: false)
            } else if width > 0 {
                (base + dataOffset + index * width)
                    .copyMemory(from: base + dataOffset + (index + 1) * width, byteCount: (count - index - 1) * width)
            }
            if leaf.nullOffset(column) != 0 { shiftBitsDown(leaf.nullOffset(column), from: index, count: count) }
        }
        base.setU16(PageLayout.countOffset, UInt16(count - 1))
        if count == 1 { base.setU32(PageLayout.auxOffset, UInt32(leaf.size)) }
    }

    private func shiftBitsUp(_ offset: Int, from index: Int, count: Int) {
        var position = count
        while position > index {
            Self.setBit(base, offset, position, ClusterLeaf.bit(UnsafeRawPointer(base), offset, position - 1))
            position -= 1
        }
    }

    private func shiftBitsDown(_ offset: Int, from index: Int, count: Int) {
        for position in index..<(count - 1) {
            Self.setBit(base, offset, position, ClusterLeaf.bit(UnsafeRawPointer(base), offset, position + 1))
        }
        Self.setBit(base, offset, count - 1, false)
    }
}
