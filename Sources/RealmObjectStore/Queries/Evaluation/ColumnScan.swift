import Foundation

/// The tightest scan: a conjunction of comparisons of the object's own number, date and boolean
/// columns with constants, compiled to storage `ScanTest`s that filter a leaf column by column
/// (`ClusterLeaf.select` in ColumnSelection.swift).
struct ColumnScan {
    let tests: [ScanTest]
    /// The columns the tests read (a test that every row passes reads none but still needs its
    /// column to exist in the leaf, see `applies(to:)`).
    let columns: [Int]
    private let maximumColumn: Int

    /// Nil unless every operand of the plan is such a comparison.
    init?(_ plan: QueryPlan) {
        let operands: [QueryPlan]
        switch plan {
        case .and(let list): operands = list
        case .compare: operands = [plan]
        default: return nil
        }
        var tests: [ScanTest] = []
        for operand in operands {
            guard case .compare(let comparison) = operand, comparison.path.hops.isEmpty, comparison.path.aggregate == nil,
                  !comparison.isMembership, comparison.path.last.property.collection == nil,
                  let scan = Self.scan(comparison.op), case .value(let value) = comparison.right else { return nil }
            let column = comparison.path.last.column
            switch (comparison.path.last.property.kind, value) {
            case (.int, .int(let int)): tests.append(.int(column: column, scan, int))
            case (.int, .double(let double)):
                guard let test = Self.integerTest(column, scan, double) else { return nil }
                if let test { tests.append(test) }
            case (.double, .double(let double)), (.date, .double(let double)): tests.append(.double(column: column, scan, double))
            case (.float, .double(let double)): tests.append(.float(column: column, scan, double))
            case (.bool, .bool(let bool)) where scan == .equal || scan == .notEqual:
                tests.append(.bool(column: column, equal: scan == .equal, bool))
            default: return nil
            }
        }
        self.tests = tests
        columns = tests.map(\.column)
        maximumColumn = operands.map { operand -> Int in
            guard case .compare(let comparison) = operand else { return 0 }
            return comparison.path.last.column
        }.max() ?? 0
    }

    private static func scan(_ op: QueryOperator) -> ScanComparison? {
        switch op {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        default: nil
        }
    }

    /// An integer column compared with a fractional or out-of-range double, as an exact integer
    /// test: `.some(nil)` when every row passes (nil included, which only `!=` admits), nil when
    /// the general evaluator must decide (NaN).
    private static func integerTest(_ column: Int, _ scan: ScanComparison, _ value: Double) -> ScanTest?? {
        guard !value.isNaN else { return nil }
        let never = ScanTest.int(column: column, .less, .min)            // no integer, and no nil, passes
        let anyValue = ScanTest.int(column: column, .lessOrEqual, .max)  // every integer passes, nil does not
        if value >= 0x1p63 {
            switch scan {
            case .less, .lessOrEqual: return anyValue
            case .greater, .greaterOrEqual, .equal: return never
            case .notEqual: return .some(nil)
            }
        }
        if value < -0x1p63 {
            switch scan {
            case .greater, .greaterOrEqual: return anyValue
            case .less, .lessOrEqual, .equal: return never
            case .notEqual: return .some(nil)
            }
        }
        let floor = value.rounded(.down)
        let integer = Int64(floor)
        if floor == value { return .int(column: column, scan, integer) }
        switch scan {
        case .less, .lessOrEqual: return .int(column: column, .lessOrEqual, integer)
        case .greater, .greaterOrEqual: return .int(column: column, .greater, integer)
        case .equal: return never
        case .notEqual: return .some(nil)
        }
    }

    /// Whether the leaf has every column the tests read (a leaf written before a migration
    /// added a column does not; the general evaluator handles it).
    func applies(to leaf: ClusterLeaf) -> Bool { maximumColumn < leaf.columnCount }
}
