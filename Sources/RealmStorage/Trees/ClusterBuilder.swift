/// A cluster decoded into arrays, for the rare edits the in-place writer cannot do: a key or an
/// integer outside its frame of reference, adding a column, rebalancing capacity against the
/// heap, splitting and merging.
///
/// Byte strings that are already in overflow runs stay there (only their references move).
struct ClusterBuilder {
    /// One decoded value.
    enum Cell: Equatable {
        case null
        case int(Int64)
        case bool(Bool)
        case float(Float)
        case double(Double)
        case inline([UInt8])
        case overflow(OverflowReference)
        case fixed([UInt8])

        /// Heap bytes this value takes in a leaf.
        var heapBytes: Int {
            switch self {
            case .inline(let bytes): bytes.count
            case .overflow: OverflowReference.size
            default: 0
            }
        }
    }

    var layout: [ColumnSpec]
    var keys: [UInt64] = []
    /// `rows[r][c]`.
    var rows: [[Cell]] = []

    init(layout: [ColumnSpec]) { self.layout = layout }

    /// Decodes a leaf; columns the leaf lacks get their default values.
    init(_ leaf: ClusterLeaf, layout: [ColumnSpec]) {
        self.layout = layout
        keys.reserveCapacity(leaf.count + 1)
        rows.reserveCapacity(leaf.count + 1)
        for row in 0..<leaf.count {
            keys.append(leaf.key(row))
            rows.append(layout.indices.map { Self.cell(leaf, row, $0, layout[$0]) })
        }
    }

    /// Decodes two neighbouring leaves into one builder, with the wider of their layouts.
    init(merging left: ClusterLeaf, _ right: ClusterLeaf, source: some PageSource) {
        let wider = left.columnCount >= right.columnCount ? left : right
        let layout = (0..<wider.columnCount).map { Self.spec(of: wider, $0) }
        self.init(left, layout: layout)
        for row in 0..<right.count {
            keys.append(right.key(row))
            rows.append(layout.indices.map { Self.cell(right, row, $0, layout[$0]) })
        }
    }

    /// The column spec a leaf's descriptor describes.
    static func spec(of leaf: ClusterLeaf, _ column: Int) -> ColumnSpec {
        let kind = leaf.kind(column) ?? .int
        return ColumnSpec(kind, nullable: leaf.nullOffset(column) != 0,
                          fixedWidth: kind == .fixed ? UInt8(leaf.width(column)) : 0)
    }

    static func cell(_ leaf: ClusterLeaf, _ row: Int, _ column: Int, _ spec: ColumnSpec) -> Cell {
        if column >= leaf.columnCount { return Cell(spec.defaultValue) }
        if leaf.isNull(row, column) { return .null }
        switch spec.kind {
        case .int: return .int(leaf.int(row, column))
        case .bool: return .bool(leaf.bool(row, column))
        case .float: return .float(leaf.float(row, column))
        case .double: return .double(leaf.double(row, column))
        case .fixed: return .fixed(Array(leaf.fixed(row, column)))
        case .bytes:
            switch leaf.storedBytes(row, column) {
            case .inline(let bytes): return .inline(Array(bytes))
            case .overflow(let reference): return .overflow(reference)
            }
        }
    }

    var count: Int { keys.count }

    mutating func insert(at index: Int, key: UInt64, cells: [Cell]) {
        keys.insert(key, at: index)
        rows.insert(cells, at: index)
    }

    // MARK: Geometry

    /// The frame of reference of the keys: the smallest key, and the width of the largest
    /// offset — at least 1 byte, so a leaf's second key does not force a rebuild.
    private var keyFrame: (base: UInt64, width: Int) {
        guard let first = keys.first, let last = keys.last else { return (0, 1) }
        return (first, max(1, FrameOfReference.width(range: last &- first)))
    }

    /// The frame of reference of an `.int` column: the narrowest width for its values' range,
    /// with the base placed so the values sit in the middle of what the width holds. Values a
    /// little outside the current ones then still fit in place: an age column that has seen
    /// 12…57 takes any age without a rebuild.
    private func intFrame(_ column: Int) -> (base: UInt64, width: Int) {
        var low = Int64.max, high = Int64.min
        for row in rows {
            guard case .int(let value) = row[column] else { continue }
            low = min(low, value)
            high = max(high, value)
        }
        guard low <= high else { return (0, 0) }
        let range = UInt64(bitPattern: high) &- UInt64(bitPattern: low)
        let width = FrameOfReference.width(range: range)
        let slack = (FrameOfReference.maximumOffset(width: width) - range) / 2
        return (UInt64(bitPattern: low) &- slack, width)
    }

    /// Each column's frame of reference (zero for other kinds than `.int`).
    private func intFrames() -> [(base: UInt64, width: Int)] {
        layout.indices.map { layout[$0].kind == .int ? intFrame($0) : (0, 0) }
    }

    private func geometry(_ frames: [(base: UInt64, width: Int)]? = nil) -> ClusterGeometry {
        let frames = frames ?? intFrames()
        return ClusterGeometry(keyWidth: keyFrame.width, columns: layout.indices.map { column in
            let spec = layout[column]
            let width = switch spec.kind {
            case .int: frames[column].width
            case .bool: 0
            case .float: 4
            case .double: 8
            case .bytes: 4
            case .fixed: Int(spec.fixedWidth)
            }
            return (spec.kind, width, spec.nullable)
        })
    }

    private func heapBytes(_ range: Range<Int>) -> Int {
        rows[range].reduce(0) { $0 + $1.reduce(0) { $0 + $1.heapBytes } }
    }

    /// Whether the rows in `range` fit a leaf of `pages` pages.
    func fits(_ range: Range<Int>? = nil, pages: Int = 1) -> Bool {
        let range = range ?? 0..<count
        return geometry().fixedBytes(capacity: range.count) + heapBytes(range) <= pages * PageLayout.pageSize
    }

    /// The pages a new leaf for these rows should span: 4 when they average at least 1 KiB of
    /// heap, 2 from 256 bytes, else 1.
    ///
    /// Leaves are filled in key order and a row never straddles two, so each leaf loses on
    /// average about half a row at its end: a quarter of a page for rows of 2 KB. Over four
    /// pages that loss is a sixteenth (W13, 100k rows of 0–4,000 B: about 19 % fewer pages than
    /// one-page leaves, which are 2 % more than SQLite's). Small rows keep one-page leaves, so a
    /// one-row update still copies 4 KiB.
    func preferredPages() -> Int {
        guard count > 0 else { return 1 }
        let average = heapBytes(0..<count) / count
        return average >= 1_024 ? 4 : average >= 256 ? 2 : 1
    }

    /// The most heap bytes one row may keep inline: what is left of a page beside one row's fixed
    /// areas at their widest, so that every row fits a leaf of its own; a row with more pushes its
    /// biggest byte strings to overflow runs. A value of up to about 4,000 bytes thus shares a leaf
    /// with its neighbours, as SQLite keeps rows in its pages, rather than taking a page of its own.
    /// What this guarantees: rows that do not fit one leaf can always be cut into leaves that do
    /// (``partition(pages:)``).
    static func rowHeapBudget(_ layout: [ColumnSpec]) -> Int {
        let geometry = ClusterGeometry(keyWidth: 8, columns: layout.map { spec in
            (spec.kind, spec.kind == .bool ? 0 : spec.kind == .fixed ? Int(spec.fixedWidth) : spec.kind == .float || spec.kind == .bytes ? 4 : 8,
             spec.nullable)
        })
        return PageLayout.pageSize - geometry.fixedBytes(capacity: 1)
    }

    /// Cuts rows that do not fit one leaf of `pages` pages into two such leaves, as near the
    /// middle as possible, or — when no such cut exists — into three.
    ///
    /// Three always suffice when the rows are a leaf that fitted plus one inserted or grown row
    /// at index *i*: `0..<i`, `i`, `i+1..<count` each fit (the first and last are parts of the
    /// old leaf; the row fits alone by ``rowHeapBudget(_:)``). The greedy cut below finds three
    /// whenever any exist, because a part of a range that fits also fits (narrower frames of
    /// reference, fewer heap bytes): its first part is at least `0..<i`, so its second reaches
    /// past `i` and its third lies within `i+1..<count`.
    ///
    /// - Complexity: O(*n*²) for *n* rows in the worst case (each `fits` is O(*n*)); three parts
    ///   only arise for rows of about a third of a page or more, so *n* is then small.
    func partition(pages: Int) -> [Range<Int>] {
        precondition(count >= 2)
        let middle = count / 2
        for distance in 0...count {
            for candidate in [middle - distance, middle + distance] where candidate >= 1 && candidate < count {
                if fits(0..<candidate, pages: pages) && fits(candidate..<count, pages: pages) { return [0..<candidate, candidate..<count] }
            }
        }
        var parts: [Range<Int>] = []
        var start = 0
        while start < count {
            var end = start + 1
            while end < count && fits(start..<(end + 1), pages: pages) { end += 1 }
            parts.append(start..<end)
            start = end
        }
        precondition(parts.count == 3 && parts.allSatisfy { fits($0, pages: pages) }, "a leaf plus one row fits three leaves")
        return parts
    }

    func slice(_ range: Range<Int>) -> ClusterBuilder {
        var part = ClusterBuilder(layout: layout)
        part.keys = Array(keys[range])
        part.rows = Array(rows[range])
        return part
    }

    // MARK: Encoding

    /// Writes the rows as a fresh leaf of `pages` pages (`fits(pages:)` must hold), leaving room
    /// for more rows in proportion to the heap the current rows use.
    func encode(into page: UnsafeMutableRawPointer, pages: Int, transaction: TransactionID) {
        precondition(pages == 1 || pages == 2 || pages == 4, "a table leaf spans 1, 2 or 4 pages")
        let size = pages * PageLayout.pageSize
        let frames = intFrames()
        let geometry = geometry(frames)
        let keyFrame = self.keyFrame
        let heap = heapBytes(0..<count)
        let perRow = Double(geometry.fixedBytes(capacity: 64) - geometry.fixedBytes(capacity: 0)) / 64
        let averageHeap = count == 0 ? 0 : Double(heap) / Double(count)
        let room = Double(size - geometry.fixedBytes(capacity: 0))
        // At most what a 16-bit count holds, and one row per 8 bytes of a page.
        var capacity = max(count, min(Int(room / (perRow + averageHeap)), (PageLayout.pageSize - 32) / 8))
        while capacity > count && geometry.fixedBytes(capacity: capacity) + heap > size { capacity -= 1 }
        precondition(geometry.fixedBytes(capacity: capacity) + heap <= size, "cluster rows do not fit their leaf")

        page.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        page.initializePageHeader(kind: .cluster, transaction: transaction)
        page.setU8(PageLayout.flagsOffset, UInt8(pages.trailingZeroBitCount))
        page.setU16(PageLayout.countOffset, UInt16(count))
        page.setU16(ClusterLeaf.capacityOffset, UInt16(capacity))
        page.setU16(ClusterLeaf.columnCountOffset, UInt16(layout.count))
        page.setU8(ClusterLeaf.keyWidthOffset, UInt8(keyFrame.width))
        var offset = ClusterLeaf.keysOffset(columnCount: layout.count)
        page.setU64(offset, keyFrame.base)
        for (row, key) in keys.enumerated() { FrameOfReference.store(key, in: page, offset, width: keyFrame.width, row: row) }
        offset += geometry.keyArea(capacity: capacity)
        var heapStart = size
        for column in layout.indices {
            let (kind, width, nullable) = geometry.columns[column]
            let descriptor = ClusterLeaf.descriptorsOffset + column * ClusterLeaf.descriptorSize
            let dataOffset = offset
            offset += geometry.area(column, capacity: capacity)
            let nullOffset = nullable ? offset : 0
            if nullable { offset += ClusterGeometry.bitmapBytes(capacity: capacity) }
            page.setU8(descriptor, kind.rawValue)
            page.setU8(descriptor + 1, UInt8(width))
            page.setU16(descriptor + 2, UInt16(dataOffset))
            page.setU16(descriptor + 4, UInt16(nullOffset))
            if kind == .int { page.setU64(dataOffset, frames[column].base) }
            for row in 0..<count {
                ClusterLeafWriter.store(rows[row][column], in: page, row: row, kind: kind, width: width,
                                        dataOffset: dataOffset, nullOffset: nullOffset, heapStart: &heapStart)
            }
        }
        page.setU32(PageLayout.auxOffset, UInt32(heapStart))
    }
}

extension ClusterBuilder.Cell {
    /// A cell for a value known not to need an overflow run.
    init(_ value: ColumnValue) {
        switch value {
        case .null: self = .null
        case .int(let value): self = .int(value)
        case .bool(let value): self = .bool(value)
        case .float(let value): self = .float(value)
        case .double(let value): self = .double(value)
        case .bytes(let bytes): self = .inline(bytes)
        case .fixed(let bytes): self = .fixed(bytes)
        }
    }
}
