/// A table leaf: the objects of one key range, stored column by column (PAX).
///
/// ```
/// 0    page header: kind .cluster, count = rows, aux = heap start
/// 24   capacity (u16): rows the fixed-width areas have room for
/// 26   column count (u16)
/// 32   column descriptors, 8 bytes each: kind, width, data offset (u16), null-bitmap offset (u16; 0 = none)
/// ...  keys: capacity × u64, sorted
/// ...  one data area per column: capacity × width bytes (bools: a bitmap), then its null bitmap
/// ...  free space
/// heap byte-string values, growing down from the end of the page
/// ```
///
/// Integers use the narrowest width (0, 1, 2, 4 or 8 bytes) that holds every value in the leaf;
/// width 0 means all zero. A byte-string column stores `(offset, length)` per row pointing into
/// the heap; length `0xFFFF` marks an overflow reference (24 heap bytes). Reading a property is
/// therefore: one descriptor load, one multiply-add, one load — no allocation, no lookup.
///
/// A leaf may have fewer columns than its table (columns added later); the missing ones read as
/// their default value. Every offset is validated by ``isWellFormed()`` before a reader trusts the
/// leaf, so a damaged page is reported instead of followed outside the page.
package struct ClusterLeaf {
    static let capacityOffset = 24
    static let columnCountOffset = 26
    static let descriptorsOffset = 32
    static let descriptorSize = 8
    static let overflowMarker: UInt16 = 0xFFFF
    /// Byte strings longer than this go to an overflow run.
    static let maximumInlineLength = 1024

    package let base: UnsafeRawPointer

    @inline(__always) package init(_ base: UnsafeRawPointer) { self.base = base }

    @inline(__always) package var count: Int { base.pageCount16 }
    @inline(__always) package var capacity: Int { Int(base.u16(Self.capacityOffset)) }
    @inline(__always) package var columnCount: Int { Int(base.u16(Self.columnCountOffset)) }
    @inline(__always) var heapStart: Int { Int(base.u32(PageLayout.auxOffset)) }

    @inline(__always) static func keysOffset(columnCount: Int) -> Int {
        (descriptorsOffset + columnCount * descriptorSize + 7) & ~7
    }
    @inline(__always) var keysOffset: Int { Self.keysOffset(columnCount: columnCount) }

    @inline(__always) package func key(_ row: Int) -> UInt64 { base.u64(keysOffset + row * 8) }

    /// Appends the leaf's keys in order: one call per leaf, so a caller collecting a table's keys
    /// pays its exclusivity check and capacity check per leaf rather than per row.
    package func appendKeys(to keys: inout [UInt64]) {
        for row in 0..<count { keys.append(key(row)) }
    }

    /// The row holding `key`, or where it would be inserted, and whether it is present.
    @inline(__always) package func find(_ key: UInt64) -> (index: Int, found: Bool) {
        let keys = keysOffset
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) >> 1
            if base.u64(keys + mid * 8) < key { low = mid + 1 } else { high = mid }
        }
        return (low, low < count && base.u64(keys + low * 8) == key)
    }

    // MARK: Columns

    @inline(__always) func descriptor(_ column: Int) -> Int { Self.descriptorsOffset + column * Self.descriptorSize }
    @inline(__always) package func kind(_ column: Int) -> ColumnSpec.Kind? { ColumnSpec.Kind(rawValue: base.u8(descriptor(column))) }
    @inline(__always) package func width(_ column: Int) -> Int { Int(base.u8(descriptor(column) + 1)) }
    @inline(__always) func dataOffset(_ column: Int) -> Int { Int(base.u16(descriptor(column) + 2)) }
    @inline(__always) func nullOffset(_ column: Int) -> Int { Int(base.u16(descriptor(column) + 4)) }

    @inline(__always) static func bit(_ base: UnsafeRawPointer, _ offset: Int, _ index: Int) -> Bool {
        base.u8(offset + index >> 3) & (1 << UInt8(index & 7)) != 0
    }

    /// Whether the row's value is null. Columns the leaf lacks count as null when nullable.
    @inline(__always) package func isNull(_ row: Int, _ column: Int) -> Bool {
        guard column < columnCount else { return true }
        let offset = nullOffset(column)
        return offset != 0 && Self.bit(base, offset, row)
    }

    /// Whether some row may read as null: the column has a null bitmap, or the leaf lacks it.
    @inline(__always) package func mayHoldNulls(_ column: Int) -> Bool {
        column >= columnCount || nullOffset(column) != 0
    }

    /// The integer in an `.int` column (0 when absent or null).
    @inline(__always) package func int(_ row: Int, _ column: Int) -> Int64 {
        guard column < columnCount else { return 0 }
        let offset = dataOffset(column)
        switch width(column) {
        case 1: return Int64(Int8(truncatingIfNeeded: base.u8(offset + row)))
        case 2: return Int64(Int16(truncatingIfNeeded: base.u16(offset + row * 2)))
        case 4: return Int64(Int32(truncatingIfNeeded: base.u32(offset + row * 4)))
        case 8: return Int64(bitPattern: base.u64(offset + row * 8))
        default: return 0
        }
    }

    @inline(__always) package func bool(_ row: Int, _ column: Int) -> Bool {
        column < columnCount && Self.bit(base, dataOffset(column), row)
    }

    @inline(__always) package func double(_ row: Int, _ column: Int) -> Double {
        guard column < columnCount else { return 0 }
        return Double(bitPattern: base.u64(dataOffset(column) + row * 8))
    }

    @inline(__always) package func float(_ row: Int, _ column: Int) -> Float {
        guard column < columnCount else { return 0 }
        return Float(bitPattern: base.u32(dataOffset(column) + row * 4))
    }

    /// The raw bytes of a `.fixed` column (empty when absent).
    @inline(__always) package func fixed(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        guard column < columnCount else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let width = self.width(column)
        return UnsafeRawBufferPointer(start: base + dataOffset(column) + row * width, count: width)
    }

    /// A `.bytes` value: inline bytes in this page, or a reference to an overflow run.
    package enum StoredBytes {
        case inline(UnsafeRawBufferPointer)
        case overflow(OverflowReference)
    }

    @inline(__always) func slot(_ row: Int, _ column: Int) -> (offset: Int, length: UInt16) {
        let slot = dataOffset(column) + row * 4
        return (Int(base.u16(slot)), base.u16(slot + 2))
    }

    @inline(__always) package func storedBytes(_ row: Int, _ column: Int) -> StoredBytes {
        guard column < columnCount else { return .inline(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let (offset, length) = slot(row, column)
        let size = length == Self.overflowMarker ? OverflowReference.size : Int(length)
        // A damaged slot must not send the read past the page.
        guard offset + size <= PageLayout.pageSize else { return .inline(UnsafeRawBufferPointer(start: nil, count: 0)) }
        if length == Self.overflowMarker { return .overflow(OverflowReference(base + offset)) }
        return .inline(UnsafeRawBufferPointer(start: base + offset, count: Int(length)))
    }

    /// Calls `body` with each overflow reference in the leaf.
    func forEachOverflow(_ body: (OverflowReference) -> Void) {
        for column in 0..<columnCount where kind(column) == .bytes {
            for row in 0..<count {
                if case .overflow(let reference) = storedBytes(row, column), !isNull(row, column) { body(reference) }
            }
        }
    }

    /// Heap bytes referenced by live rows.
    var liveHeapBytes: Int {
        var total = 0
        for column in 0..<columnCount where kind(column) == .bytes {
            for row in 0..<count where !isNull(row, column) {
                let length = slot(row, column).length
                total += length == Self.overflowMarker ? OverflowReference.size : Int(length)
            }
        }
        return total
    }

    /// Bytes this leaf's rows need (fixed areas at `count` rows plus live heap), for merge decisions.
    var usedBytes: Int {
        ClusterGeometry(columns: (0..<columnCount).map { (kind($0) ?? .int, width($0), nullOffset($0) != 0) })
            .fixedBytes(capacity: count) + liveHeapBytes
    }

    /// Checks the geometry a reader relies on (descriptors and areas): O(columns), done on every
    /// lookup. Byte-string slots are bounded where they are read (``storedBytes(_:_:)``).
    package func isWellFormed() -> Bool { isWellFormed(deep: false) }

    /// Also checks every byte-string slot and key order: O(rows), for integrity checks.
    package func isWellFormed(deep: Bool) -> Bool {
        let columns = columnCount
        guard count <= capacity, Self.keysOffset(columnCount: columns) + capacity * 8 <= PageLayout.pageSize,
              heapStart <= PageLayout.pageSize else { return false }
        var fixedEnd = keysOffset + capacity * 8
        for column in 0..<columns {
            guard let kind = kind(column) else { return false }
            let width = self.width(column)
            let area: Int
            switch kind {
            case .int:
                switch width { case 0, 1, 2, 4, 8: break; default: return false }
                area = capacity * width
            case .bool: area = (capacity + 7) / 8
            case .float: guard width == 4 else { return false }; area = capacity * 4
            case .double: guard width == 8 else { return false }; area = capacity * 8
            case .bytes: guard width == 4 else { return false }; area = capacity * 4
            case .fixed: guard width > 0 else { return false }; area = capacity * width
            }
            guard dataOffset(column) >= Self.keysOffset(columnCount: columns),
                  dataOffset(column) + area <= heapStart else { return false }
            if nullOffset(column) != 0 {
                guard nullOffset(column) + (capacity + 7) / 8 <= heapStart else { return false }
            }
            fixedEnd = max(fixedEnd, dataOffset(column) + area)
            if deep && kind == .bytes {
                for row in 0..<count where !isNull(row, column) {
                    let (offset, length) = slot(row, column)
                    let size = length == Self.overflowMarker ? OverflowReference.size : Int(length)
                    guard offset >= heapStart || size == 0, offset + size <= PageLayout.pageSize else { return false }
                }
            }
        }
        if deep {
            for row in 1..<max(count, 1) where key(row - 1) >= key(row) { return false }
        }
        return fixedEnd <= heapStart
    }
}

/// The sizes of a cluster's fixed-width areas for a given capacity.
struct ClusterGeometry {
    /// Per column: kind, value width in bytes (0 for bools and all-zero ints), nullable.
    var columns: [(kind: ColumnSpec.Kind, width: Int, nullable: Bool)]

    /// Bytes of a column's data area, rounded up to 8 so every area starts 8-byte aligned.
    func area(_ column: Int, capacity: Int) -> Int {
        let info = columns[column]
        return Self.aligned(info.kind == .bool ? (capacity + 7) / 8 : capacity * info.width)
    }

    static func bitmapBytes(capacity: Int) -> Int { aligned((capacity + 7) / 8) }
    static func aligned(_ bytes: Int) -> Int { (bytes + 7) & ~7 }

    /// Bytes from the start of the page to the end of the fixed areas.
    func fixedBytes(capacity: Int) -> Int {
        var total = ClusterLeaf.keysOffset(columnCount: columns.count) + capacity * 8
        for column in columns.indices {
            total += area(column, capacity: capacity)
            if columns[column].nullable { total += Self.bitmapBytes(capacity: capacity) }
        }
        return total
    }
}
