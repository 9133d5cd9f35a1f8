/// A comparison a column scan applies to every row of a leaf at once.
package enum ScanComparison: Sendable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
}

/// Column-at-a-time filtering of a table leaf: each call narrows a selection (one byte per row,
/// 1 = still selected) by one comparison over one column. The column's layout (offset, width,
/// null bitmap) is read once per leaf, and the inner loops are branch-free over packed arrays,
/// which the compiler vectorizes — this is what makes an unindexed scan run at memory speed.
///
/// Null rows compare like Realm's nil: only `notEqual` holds for them.
extension ClusterLeaf {
    /// Narrows `selection` to rows whose integer column `column` compares to `value`.
    package func select(_ column: Int, _ comparison: ScanComparison, int value: Int64, _ selection: UnsafeMutableBufferPointer<UInt8>) {
        let offset = dataOffset(column)
        let selectedNulls = selectedNullRows(column, comparison, selection)
        switch width(column) {
        case 1: select(selection, comparison, value) { Int64(Int8(truncatingIfNeeded: base.u8(offset + $0))) }
        case 2: select(selection, comparison, value) { Int64(Int16(truncatingIfNeeded: base.u16(offset + $0 * 2))) }
        case 4: select(selection, comparison, value) { Int64(Int32(truncatingIfNeeded: base.u32(offset + $0 * 4))) }
        case 8: select(selection, comparison, value) { Int64(bitPattern: base.u64(offset + $0 * 8)) }
        default: select(selection, comparison, value) { _ in 0 }  // width 0: every value is 0
        }
        applyNulls(column, comparison, selection, selectedNulls)
    }

    /// Narrows `selection` to rows whose double column (doubles, dates) compares to `value`.
    package func select(_ column: Int, _ comparison: ScanComparison, double value: Double, _ selection: UnsafeMutableBufferPointer<UInt8>) {
        let offset = dataOffset(column)
        let selectedNulls = selectedNullRows(column, comparison, selection)
        select(selection, comparison, value) { Double(bitPattern: base.u64(offset + $0 * 8)) }
        applyNulls(column, comparison, selection, selectedNulls)
    }

    /// Narrows `selection` to rows whose float column compares to `value`.
    package func select(_ column: Int, _ comparison: ScanComparison, float value: Double, _ selection: UnsafeMutableBufferPointer<UInt8>) {
        let offset = dataOffset(column)
        let selectedNulls = selectedNullRows(column, comparison, selection)
        select(selection, comparison, value) { Double(Float(bitPattern: base.u32(offset + $0 * 4))) }
        applyNulls(column, comparison, selection, selectedNulls)
    }

    @inline(__always)
    private func select<T: Comparable>(_ selection: UnsafeMutableBufferPointer<UInt8>, _ comparison: ScanComparison, _ value: T,
                                       _ load: (Int) -> T) {
        let count = Swift.min(self.count, selection.count)
        switch comparison {
        case .equal: for row in 0..<count { selection[row] &= load(row) == value ? 1 : 0 }
        case .notEqual: for row in 0..<count { selection[row] &= load(row) != value ? 1 : 0 }
        case .less: for row in 0..<count { selection[row] &= load(row) < value ? 1 : 0 }
        case .lessOrEqual: for row in 0..<count { selection[row] &= load(row) <= value ? 1 : 0 }
        case .greater: for row in 0..<count { selection[row] &= load(row) > value ? 1 : 0 }
        case .greaterOrEqual: for row in 0..<count { selection[row] &= load(row) >= value ? 1 : 0 }
        }
    }

    /// For `notEqual`, the selected rows whose value is null: they pass, whatever their stored
    /// placeholder compares as.
    private func selectedNullRows(_ column: Int, _ comparison: ScanComparison, _ selection: UnsafeMutableBufferPointer<UInt8>) -> [Int] {
        let offset = nullOffset(column)
        guard offset != 0, comparison == .notEqual else { return [] }
        return (0..<Swift.min(count, selection.count)).filter { selection[$0] != 0 && Self.bit(base, offset, $0) }
    }

    /// Rows whose value is null pass only `notEqual` (restored from `selectedNulls`).
    private func applyNulls(_ column: Int, _ comparison: ScanComparison, _ selection: UnsafeMutableBufferPointer<UInt8>,
                            _ selectedNulls: [Int]) {
        let offset = nullOffset(column)
        guard offset != 0 else { return }
        if comparison == .notEqual {
            for row in selectedNulls { selection[row] = 1 }
            return
        }
        for row in 0..<Swift.min(count, selection.count) where Self.bit(base, offset, row) { selection[row] = 0 }
    }
}
