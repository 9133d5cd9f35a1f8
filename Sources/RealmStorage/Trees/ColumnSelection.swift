/// A comparison a column scan applies to every row of a leaf at once.
package enum ScanComparison: Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
}

/// One test of a column scan: a column of the leaf compared with a constant.
package enum ScanTest: Sendable {
    /// An `.int` column (any stored width) compared with an integer.
    case int(column: Int, ScanComparison, Int64)
    /// A `.double` column (doubles, dates) compared with a double.
    case double(column: Int, ScanComparison, Double)
    /// A `.float` column compared with a double (the float is widened, as Realm compares).
    case float(column: Int, ScanComparison, Double)
    /// A `.bool` column: `equal` says whether the test is `==` (else `!=`).
    case bool(column: Int, equal: Bool, Bool)

    /// The column the test reads.
    package var column: Int {
        switch self {
        case .int(let column, _, _), .double(let column, _, _), .float(let column, _, _), .bool(let column, _, _): column
        }
    }

    /// Whether a null value passes: only `!=` holds for nil, as in Realm.
    var nullPasses: Bool {
        switch self {
        case .int(_, let comparison, _), .double(_, let comparison, _), .float(_, let comparison, _): comparison == .notEqual
        case .bool(_, let equal, _): !equal
        }
    }
}

/// Column-at-a-time filtering of a table leaf: a selection (one byte per row, 1 = selected) is
/// narrowed by one test after another, each a loop over one packed column array. The column's
/// layout (offset, width, null bitmap) is read once per test and leaf, and the loops over
/// non-nullable columns are branch-free, which the compiler vectorizes — this is what makes an
/// unindexed scan run at memory speed. Counting sums the selection instead of visiting rows.
///
/// Cost: O(rows × tests) byte operations per leaf, no allocation (the selection lives on the
/// stack). Every tested column must exist in the leaf (`column < columnCount`); the caller
/// checks, because a leaf written before a migration added a column needs the general path.
extension ClusterLeaf {
    /// How many rows pass every test.
    package func countSelected(_ tests: [ScanTest]) -> Int {
        let rows = count
        guard rows > 0 else { return 0 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: rows) { selection in
            select(tests, selection)
            var total = 0
            for row in 0..<rows { total &+= Int(selection[row]) }
            return total
        }
    }

    /// Calls `body` with every row that passes every test, in row order.
    package func forEachSelected(_ tests: [ScanTest], _ body: (Int) throws -> Void) rethrows {
        let rows = count
        guard rows > 0 else { return }
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: rows) { selection in
            select(tests, selection)
            for row in 0..<rows where selection[row] != 0 { try body(row) }
        }
    }

    /// Sets `selection[row]` (for the leaf's rows) to 1 for rows passing every test, else 0.
    package func select(_ tests: [ScanTest], _ selection: UnsafeMutableBufferPointer<UInt8>) {
        let rows = Swift.min(count, selection.count)
        let selection = UnsafeMutableBufferPointer(rebasing: selection[0..<rows])
        selection.initialize(repeating: 1)
        for test in tests { narrow(selection, by: test) }
    }

    private func narrow(_ selection: UnsafeMutableBufferPointer<UInt8>, by test: ScanTest) {
        let column = test.column
        let offset = dataOffset(column)
        let nulls = nullOffset(column)
        switch test {
        case .int(_, let comparison, let value):
            // A frame of reference: the base plus each row's offset (FrameOfReference).
            let frame = base.u64(offset)
            let offsets = offset &+ 8
            switch width(column) {
            case 1: narrow(selection, comparison, value, nulls, test.nullPasses) { Int64(bitPattern: frame &+ UInt64(base.u8(offsets &+ $0))) }
            case 2: narrow(selection, comparison, value, nulls, test.nullPasses) { Int64(bitPattern: frame &+ UInt64(base.u16(offsets &+ $0 &* 2))) }
            case 4: narrow(selection, comparison, value, nulls, test.nullPasses) { Int64(bitPattern: frame &+ UInt64(base.u32(offsets &+ $0 &* 4))) }
            case 8: narrow(selection, comparison, value, nulls, test.nullPasses) { Int64(bitPattern: frame &+ base.u64(offsets &+ $0 &* 8)) }
            default: narrow(selection, comparison, value, nulls, test.nullPasses) { _ in Int64(bitPattern: frame) }  // width 0: all equal
            }
        case .double(_, let comparison, let value):
            narrow(selection, comparison, value, nulls, test.nullPasses) { Double(bitPattern: base.u64(offset &+ $0 &* 8)) }
        case .float(_, let comparison, let value):
            narrow(selection, comparison, value, nulls, test.nullPasses) { Double(Float(bitPattern: base.u32(offset &+ $0 &* 4))) }
        case .bool(_, let equal, let value):
            let want: UInt8 = value ? 1 : 0
            narrow(selection, equal ? .equal : .notEqual, want, nulls, test.nullPasses) { (base.u8(offset &+ $0 >> 3) >> UInt8($0 & 7)) & 1 }
        }
    }

    /// One test over the rows: `selection[row] &= passes(row)`. A nullable column (`nulls` is its
    /// bitmap's offset, 0 when the column is not nullable) takes the slower loop that reads the
    /// row's null bit, since a null's stored placeholder must not decide the outcome.
    @inline(__always)
    private func narrow<T: Comparable>(_ selection: UnsafeMutableBufferPointer<UInt8>, _ comparison: ScanComparison, _ value: T,
                                       _ nulls: Int, _ nullPasses: Bool, _ load: (Int) -> T) {
        if nulls != 0 {
            let pass: UInt8 = nullPasses ? 1 : 0
            for row in selection.indices {
                let isNull = (base.u8(nulls &+ row >> 3) >> UInt8(row & 7)) & 1
                let compared: UInt8 = Self.compare(load(row), comparison, value) ? 1 : 0
                selection[row] &= isNull != 0 ? pass : compared
            }
            return
        }
        // One loop per operator, so each is a straight compare-and-mask the compiler vectorizes.
        switch comparison {
        case .equal: for row in selection.indices { selection[row] &= load(row) == value ? 1 : 0 }
        case .notEqual: for row in selection.indices { selection[row] &= load(row) != value ? 1 : 0 }
        case .less: for row in selection.indices { selection[row] &= load(row) < value ? 1 : 0 }
        case .lessOrEqual: for row in selection.indices { selection[row] &= load(row) <= value ? 1 : 0 }
        case .greater: for row in selection.indices { selection[row] &= load(row) > value ? 1 : 0 }
        case .greaterOrEqual: for row in selection.indices { selection[row] &= load(row) >= value ? 1 : 0 }
        }
    }

    @inline(__always)
    private static func compare<T: Comparable>(_ left: T, _ comparison: ScanComparison, _ right: T) -> Bool {
        switch comparison {
        case .equal: left == right
        case .notEqual: left != right
        case .less: left < right
        case .lessOrEqual: left <= right
        case .greater: left > right
        case .greaterOrEqual: left >= right
        }
    }
}

extension ClusterLeaf {
    /// Asks the CPU to bring the cache lines of `columns`' data arrays into cache, without waiting
    /// for them: one non-blocking prefetch per line, so the misses of the next leaf overlap with the
    /// work on this one. Reads the leaf's descriptors, so its header should already be in cache
    /// (``prefetchHeader(_:)`` a few leaves earlier).
    ///
    /// Safe on any page, even an unverified or damaged one: every address is kept inside the page,
    /// and a prefetch never faults or changes memory.
    @inline(__always)
    package func prefetch(_ columns: [Int]) {
        let pageMask = PageLayout.pageSize - 1
        let rows = Swift.min(count, capacity)
        for column in columns where column < columnCount && descriptor(column + 1) <= PageLayout.pageSize {
            let start = dataOffset(column) & pageMask
            let frame = kind(column) == .int ? 8 : 0  // an integer area starts with its base
            let end = Swift.min(start &+ frame &+ width(column) &* rows, PageLayout.pageSize)
            var line = start & ~63  // pages are page-aligned, so this is a cache-line boundary
            while line < end { Prefetch.read(base + line); line &+= 64 }
        }
    }

    /// Prefetches the first two cache lines of a page: its header and the first descriptors.
    @inline(__always)
    package static func prefetchHeader(_ base: UnsafeRawPointer) {
        Prefetch.read(base)
        Prefetch.read(base + 64)
    }
}
