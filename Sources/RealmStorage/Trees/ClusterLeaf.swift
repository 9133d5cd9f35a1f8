/// A table leaf: the objects of one key range, stored column by column (PAX), in one page or in
/// a run of 2 or 4 contiguous pages (a *wide* leaf, for rows of medium values: see
/// ``ClusterBuilder/preferredPages()``).
///
/// ```
/// 0    page header: kind .cluster, flags = log2(pages), count = rows, aux = heap start
/// 24   capacity (u16): rows the fixed-width areas have room for
/// 26   column count (u16)
/// 28   key width (u8): bytes per key offset
/// 32   column descriptors, 8 bytes each: kind, width, data offset (u16), null-bitmap offset (u16; 0 = none)
/// ...  keys, ascending: a frame of reference (see below), capacity × key width
/// ...  one data area per column: capacity × width bytes (integers: a frame of reference; bools:
///      a bitmap), then its null bitmap
/// ...  free space
/// heap byte-string values, growing down from the end of the leaf (``size``)
/// ```
///
/// Keys and integer columns are stored as a *frame of reference* (``FrameOfReference``): a 64-bit
/// base, then one unsigned offset from it per row in the narrowest of 0, 1, 2, 4 or 8 bytes that
/// the leaf's values need, so consecutive keys or ids take one byte per row. A byte-string column
/// stores `(offset, length)` per row pointing into the heap; length `0xFFFF` marks an overflow
/// reference (24 heap bytes). Reading a property is therefore: one descriptor load, one
/// multiply-add, one or two loads — no allocation, no lookup.
///
/// A leaf may have fewer columns than its table (columns added later); the missing ones read as
/// their default value. Every offset is validated by ``isWellFormed()`` before a reader trusts the
/// leaf, so a damaged page is reported instead of followed outside the page.
// Public (the module is not a product, so users never see it) and `@inlinable`, so the upper
// layers inline these reads: Swift serializes the bodies of public declarations only, and a
// call per property read cost ~9 % of W5.
public struct ClusterLeaf {
    @usableFromInline static let capacityOffset = 24
    @usableFromInline static let columnCountOffset = 26
    @usableFromInline static let keyWidthOffset = 28
    @usableFromInline static let descriptorsOffset = 32
    @usableFromInline static let descriptorSize = 8
    @usableFromInline static let overflowMarker: UInt16 = 0xFFFF

    public let base: UnsafeRawPointer

    @inlinable @inline(__always) public init(_ base: UnsafeRawPointer) { self.base = base }

    /// The largest log2 of a leaf's pages: leaves span 1, 2 or 4 pages.
    static let maximumSpanShift = 2

    /// log2 of the pages the leaf spans (the header's flags byte; masked, so a damaged byte
    /// cannot claim more than 8 pages before ``isWellFormed()`` refuses it).
    @inlinable @inline(__always) var spanShift: Int { Int(base.u8(PageLayout.flagsOffset) & 3) }
    /// The contiguous pages the leaf spans: 1, 2 or 4.
    @inlinable @inline(__always) package var pages: Int { 1 << spanShift }
    /// The leaf's bytes: its pages times the page size. Every offset in the leaf is below it.
    @inlinable @inline(__always) public var size: Int { PageLayout.pageSize << spanShift }

    @inlinable @inline(__always) public var count: Int { base.pageCount16 }
    @inline(__always) package var capacity: Int { Int(base.u16(Self.capacityOffset)) }
    @inlinable @inline(__always) public var columnCount: Int { Int(base.u16(Self.columnCountOffset)) }
    /// Bytes per key offset in the key area (0, 1, 2, 4 or 8).
    @inlinable @inline(__always) var keyWidth: Int { Int(base.u8(Self.keyWidthOffset)) }
    @inlinable @inline(__always) var heapStart: Int { Int(base.u32(PageLayout.auxOffset)) }

    @inlinable @inline(__always) static func keysOffset(columnCount: Int) -> Int {
        (descriptorsOffset + columnCount * descriptorSize + 7) & ~7
    }
    @inlinable @inline(__always) var keysOffset: Int { Self.keysOffset(columnCount: columnCount) }

    @inlinable @inline(__always) public func key(_ row: Int) -> UInt64 {
        FrameOfReference.load(base, keysOffset, width: keyWidth, row: row)
    }

    /// Appends the leaf's keys in order: one call per leaf, so a caller collecting a table's keys
    /// into a captured array pays its exclusivity check per leaf rather than per row.
    package func appendKeys(to keys: inout [UInt64]) {
        for row in 0..<count { keys.append(key(row)) }
    }

    /// Whether `key` can join the key area as it is: at or above its base (offsets must order like
    /// the keys, so they may not wrap) and within what the width holds.
    @inline(__always) func canHoldKey(_ key: UInt64) -> Bool {
        key >= base.u64(keysOffset) && FrameOfReference.fits(key, base, keysOffset, width: keyWidth)
    }

    /// The row holding `key`, or where it would be inserted, and whether it is present: a binary
    /// search over the key offsets, with the width decided once.
    @inlinable @inline(__always) public func find(_ key: UInt64) -> (index: Int, found: Bool) {
        let area = keysOffset
        let frame = base.u64(area)
        let count = self.count
        guard count > 0, key >= frame else { return (0, false) }
        let target = key &- frame
        let offsets = area &+ 8
        @inline(__always) func search(_ offset: (Int) -> UInt64) -> (index: Int, found: Bool) {
            var low = 0
            var high = count
            while low < high {
                let mid = (low + high) >> 1
                if offset(mid) < target { low = mid + 1 } else { high = mid }
            }
            return (low, low < count && offset(low) == target)
        }
        switch keyWidth {
        case 1: return search { UInt64(base.u8(offsets &+ $0)) }
        case 2: return search { UInt64(base.u16(offsets &+ $0 &* 2)) }
        case 4: return search { UInt64(base.u32(offsets &+ $0 &* 4)) }
        case 8: return search { base.u64(offsets &+ $0 &* 8) }
        default: return search { _ in 0 }
        }
    }

    // MARK: Columns

    @inlinable @inline(__always) func descriptor(_ column: Int) -> Int { Self.descriptorsOffset + column * Self.descriptorSize }
    @inline(__always) package func kind(_ column: Int) -> ColumnSpec.Kind? { ColumnSpec.Kind(rawValue: base.u8(descriptor(column))) }
    @inlinable @inline(__always) public func width(_ column: Int) -> Int { Int(base.u8(descriptor(column) + 1)) }
    @inlinable @inline(__always) func dataOffset(_ column: Int) -> Int { Int(base.u16(descriptor(column) + 2)) }
    @inlinable @inline(__always) func nullOffset(_ column: Int) -> Int { Int(base.u16(descriptor(column) + 4)) }

    @inlinable @inline(__always) static func bit(_ base: UnsafeRawPointer, _ offset: Int, _ index: Int) -> Bool {
        base.u8(offset + index >> 3) & (1 << UInt8(index & 7)) != 0
    }

    /// Whether the row's value is null. Columns the leaf lacks count as null when nullable.
    @inlinable @inline(__always) public func isNull(_ row: Int, _ column: Int) -> Bool {
        guard column < columnCount else { return true }
        let offset = nullOffset(column)
        return offset != 0 && Self.bit(base, offset, row)
    }

    /// Whether some row may read as null: the column has a null bitmap, or the leaf lacks it.
    @inlinable @inline(__always) public func mayHoldNulls(_ column: Int) -> Bool {
        column >= columnCount || nullOffset(column) != 0
    }

    /// The integer in an `.int` column (0 when absent; unspecified when null).
    @inlinable @inline(__always) public func int(_ row: Int, _ column: Int) -> Int64 {
        guard column < columnCount else { return 0 }
        return Int64(bitPattern: FrameOfReference.load(base, dataOffset(column), width: width(column), row: row))
    }

    @inlinable @inline(__always) public func bool(_ row: Int, _ column: Int) -> Bool {
        column < columnCount && Self.bit(base, dataOffset(column), row)
    }

    @inlinable @inline(__always) public func double(_ row: Int, _ column: Int) -> Double {
        guard column < columnCount else { return 0 }
        return Double(bitPattern: base.u64(dataOffset(column) + row * 8))
    }

    @inlinable @inline(__always) public func float(_ row: Int, _ column: Int) -> Float {
        guard column < columnCount else { return 0 }
        return Float(bitPattern: base.u32(dataOffset(column) + row * 4))
    }

    /// The raw bytes of a `.fixed` column (empty when absent).
    @inlinable @inline(__always) public func fixed(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        guard column < columnCount else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let width = self.width(column)
        return UnsafeRawBufferPointer(start: base + dataOffset(column) + row * width, count: width)
    }

    /// A `.bytes` value: inline bytes in this page, or a reference to an overflow run.
    public enum StoredBytes {
        case inline(UnsafeRawBufferPointer)
        case overflow(OverflowReference)
    }

    @inlinable @inline(__always) func slot(_ row: Int, _ column: Int) -> (offset: Int, length: UInt16) {
        let slot = dataOffset(column) + row * 4
        return (Int(base.u16(slot)), base.u16(slot + 2))
    }

    @inlinable @inline(__always) public func storedBytes(_ row: Int, _ column: Int) -> StoredBytes {
        guard column < columnCount else { return .inline(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let (offset, length) = slot(row, column)
        let size = length == Self.overflowMarker ? OverflowReference.size : Int(length)
        // A damaged slot must not send the read past the leaf.
        guard offset + size <= self.size else { return .inline(UnsafeRawBufferPointer(start: nil, count: 0)) }
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
    var usedBytes: Int { fixedBytes(capacity: count) + liveHeapBytes }

    /// Whether the leaf, rebuilt with one more row of `cells` and its present widths, would fit
    /// its pages. (A rebuild may need wider integers, so `true` is a guess; `false` is not.)
    /// - Complexity: O(rows × byte-string columns).
    func hasRoom(forAnotherRowOf cells: [ClusterBuilder.Cell]) -> Bool {
        fixedBytes(capacity: count + 1) + liveHeapBytes + cells.reduce(0) { $0 + $1.heapBytes } <= size
    }

    /// Bytes from the start of the leaf to the end of its fixed-width areas, were they laid out
    /// for `capacity` rows with the leaf's widths: ``ClusterGeometry/fixedBytes(capacity:)``
    /// read off the descriptors instead of an array of them, because an insert asks it (for
    /// the free space below the heap) and building that array was one allocation per insert.
    /// - Complexity: O(columns).
    func fixedBytes(capacity: Int) -> Int {
        ClusterGeometry.fixedBytes(keyWidth: keyWidth, columnCount: columnCount, capacity: capacity) { column in
            (kind(column) ?? .int, width(column), nullOffset(column) != 0)
        }
    }

    /// Whether row `row` exists and holds `key`: a position found earlier is checked so before
    /// it is used.
    @inlinable @inline(__always) public func holds(_ key: UInt64, at row: Int) -> Bool {
        row < count && self.key(row) == key
    }

    /// Checks the geometry a reader relies on (descriptors and areas): O(columns), done on every
    /// lookup. Byte-string slots are bounded where they are read (``storedBytes(_:_:)``).
    /// What in the leaf's columns differs from the table's `layout` (nil entries: columns of
    /// removed properties, not compared), in words, or nil: more columns than the table has, or
    /// a column whose kind (or fixed width) is not the layout's. Readers take a column's kind
    /// from the schema, so a leaf that differs is read as the wrong bytes.
    package func columnMismatch(_ layout: [ColumnSpec?]) -> String? {
        guard columnCount <= layout.count else { return "has \(columnCount) columns, but its table \(layout.count)" }
        for column in 0..<columnCount {
            guard let spec = layout[column] else { continue }
            guard let kind = kind(column), kind == spec.kind, kind != .fixed || width(column) == Int(spec.fixedWidth) else {
                return "holds column \(column) as kind \(base.u8(descriptor(column))) width \(width(column)), but its table has \(spec)"
            }
        }
        return nil
    }

    package func isWellFormed() -> Bool { isWellFormed(deep: false) }

    /// Also checks every byte-string slot and key order: O(rows), for integrity checks.
    package func isWellFormed(deep: Bool) -> Bool {
        let columns = columnCount
        guard base.u8(PageLayout.flagsOffset) <= Self.maximumSpanShift, count <= capacity, FrameOfReference.isValid(width: keyWidth),
              Self.keysOffset(columnCount: columns) + FrameOfReference.bytes(capacity: capacity, width: keyWidth) <= size,
              heapStart <= size else { return false }
        var fixedEnd = keysOffset + FrameOfReference.bytes(capacity: capacity, width: keyWidth)
        for column in 0..<columns {
            guard let kind = kind(column) else { return false }
            let width = self.width(column)
            let area: Int
            switch kind {
            case .int:
                guard FrameOfReference.isValid(width: width) else { return false }
                area = FrameOfReference.bytes(capacity: capacity, width: width)
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
                    guard offset >= heapStart || size == 0, offset + size <= self.size else { return false }
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
    /// Bytes per key offset.
    var keyWidth: Int
    /// Per column: kind, value width in bytes (0 for bools and all-equal ints), nullable.
    var columns: [(kind: ColumnSpec.Kind, width: Int, nullable: Bool)]

    /// Bytes of a column's data area, rounded up to 8 so every area starts 8-byte aligned.
    func area(_ column: Int, capacity: Int) -> Int {
        Self.area(kind: columns[column].kind, width: columns[column].width, capacity: capacity)
    }

    /// Bytes of the data area of a column of `kind` whose values take `width` bytes.
    static func area(kind: ColumnSpec.Kind, width: Int, capacity: Int) -> Int {
        switch kind {
        case .bool: return aligned((capacity + 7) / 8)
        case .int: return aligned(FrameOfReference.bytes(capacity: capacity, width: width))
        default: return aligned(capacity * width)
        }
    }

    /// Bytes of the key area.
    func keyArea(capacity: Int) -> Int { Self.keyArea(width: keyWidth, capacity: capacity) }
    static func keyArea(width: Int, capacity: Int) -> Int { aligned(FrameOfReference.bytes(capacity: capacity, width: width)) }

    static func bitmapBytes(capacity: Int) -> Int { aligned((capacity + 7) / 8) }
    static func aligned(_ bytes: Int) -> Int { (bytes + 7) & ~7 }

    /// Bytes from the start of the page to the end of the fixed areas.
    func fixedBytes(capacity: Int) -> Int {
        Self.fixedBytes(keyWidth: keyWidth, columnCount: columns.count, capacity: capacity) { columns[$0] }
    }

    /// Bytes from the start of a leaf to the end of its fixed areas for `capacity` rows, with
    /// `column` giving each column's kind, width and whether it has a null bitmap: the one
    /// formula for a geometry held in an array and for a leaf's own descriptors.
    static func fixedBytes(keyWidth: Int, columnCount: Int, capacity: Int,
                           column: (Int) -> (kind: ColumnSpec.Kind, width: Int, nullable: Bool)) -> Int {
        var total = ClusterLeaf.keysOffset(columnCount: columnCount) + keyArea(width: keyWidth, capacity: capacity)
        for index in 0..<columnCount {
            let info = column(index)
            total += area(kind: info.kind, width: info.width, capacity: capacity)
            if info.nullable { total += bitmapBytes(capacity: capacity) }
        }
        return total
    }
}

/// Integers stored as a frame of reference: a 64-bit base, then one unsigned offset from it per
/// row, in the narrowest of 0, 1, 2, 4 or 8 bytes that holds every offset of the leaf. A value is
/// `base &+ offset` (wrapping, so signed integers and any base work alike). Keys and `.int`
/// columns use it: a leaf of consecutive keys, ids, or values in a small range (an age) stores
/// one byte per row instead of eight.
///
/// Layout of an area: base (u64) at `area`, offsets from `area + 8`.
@usableFromInline enum FrameOfReference {
    static func isValid(width: Int) -> Bool { width == 0 || width == 1 || width == 2 || width == 4 || width == 8 }

    /// Bytes of an area with room for `capacity` offsets.
    static func bytes(capacity: Int, width: Int) -> Int { 8 + capacity * width }

    /// The largest offset `width` bytes hold.
    static func maximumOffset(width: Int) -> UInt64 { width >= 8 ? .max : (1 << UInt64(width * 8)) - 1 }

    /// The narrowest width for values spanning `range` (largest minus smallest, wrapping).
    static func width(range: UInt64) -> Int {
        range == 0 ? 0 : range <= 0xFF ? 1 : range <= 0xFFFF ? 2 : range <= 0xFFFF_FFFF ? 4 : 8
    }

    @inlinable @inline(__always)
    static func load(_ page: UnsafeRawPointer, _ area: Int, width: Int, row: Int) -> UInt64 {
        let base = page.u64(area)
        let offsets = area &+ 8
        switch width {
        case 1: return base &+ UInt64(page.u8(offsets &+ row))
        case 2: return base &+ UInt64(page.u16(offsets &+ row &* 2))
        case 4: return base &+ UInt64(page.u32(offsets &+ row &* 4))
        case 8: return base &+ page.u64(offsets &+ row &* 8)
        default: return base
        }
    }

    /// Whether `value` can be stored in the area as it is (its offset fits the width).
    static func fits(_ value: UInt64, _ page: UnsafeRawPointer, _ area: Int, width: Int) -> Bool {
        value &- page.u64(area) <= maximumOffset(width: width)
    }

    /// Stores `value` at `row`; it must fit.
    static func store(_ value: UInt64, in page: UnsafeMutableRawPointer, _ area: Int, width: Int, row: Int) {
        let offset = value &- UnsafeRawPointer(page).u64(area)
        let offsets = area + 8
        switch width {
        case 1: page.setU8(offsets + row, UInt8(truncatingIfNeeded: offset))
        case 2: page.setU16(offsets + row * 2, UInt16(truncatingIfNeeded: offset))
        case 4: page.setU32(offsets + row * 4, UInt32(truncatingIfNeeded: offset))
        case 8: page.setU64(offsets + row * 8, offset)
        default: break
        }
    }

    /// Moves the offsets of rows `from..<count` one row up (to make room at `from`) or down.
    static func shift(_ page: UnsafeMutableRawPointer, _ area: Int, width: Int, from: Int, count: Int, up: Bool) {
        guard width > 0 else { return }
        let offsets = page + area + 8
        if up {
            (offsets + (from + 1) * width).copyMemory(from: offsets + from * width, byteCount: (count - from) * width)
        } else {
            (offsets + from * width).copyMemory(from: offsets + (from + 1) * width, byteCount: (count - from - 1) * width)
        }
    }
}
