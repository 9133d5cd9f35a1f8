import Foundation
package import RealmStorage

/// Runs bound queries (``QueryPlan``) over one version of a file.
///
/// A query over a table uses an index when its top level (or one operand of a top-level `AND`)
/// is `==`/`IN` on an indexed property or the primary key, and evaluates the whole predicate on
/// those candidates only; otherwise it scans the table leaf by leaf. A comparison of a property
/// of the queried object with a constant reads the column in place (no copy, no allocation for
/// numbers, dates and booleans); paths through links and collections gather their values first.
/// `AND` and `OR` stop at the first operand that decides.
package struct QueryEvaluator {
    package let source: any PageSource
    /// The root of a tree at the version being read.
    package let root: (TreeID) throws -> TreeRoot

    package init(source: any PageSource, root: @escaping (TreeID) throws -> TreeRoot) {
        self.source = source
        self.root = root
    }

    // MARK: Whole tables

    /// The keys of the objects of `table` matching `plan`, in key order. With a `limit`, a scan
    /// may stop once it has that many: the result is then the first matches (at least `limit`
    /// of them, or all if fewer), and only a result shorter than `limit` is known to be all.
    package func matchingKeys(_ plan: QueryPlan, in table: Table, limit: Int? = nil) throws -> [UInt64] {
        if let (candidates, exact) = try indexCandidates(plan, table) {
            if exact { return candidates }
            return try candidates.filter { key in
                guard let (leaf, row) = try source.row(in: root(table.tree), key: key) else { return false }
                return try evaluate(plan, leaf, row, table)
            }
        }
        let scan = ColumnScan(plan)
        var keys: [UInt64] = []
        try source.forEachCluster(in: root(table.tree), prefetching: scan?.columns ?? []) { leaf in
            if let scan, scan.applies(to: leaf) {
                leaf.forEachSelected(scan.tests) { keys.append(leaf.key($0)) }
            } else {
                for row in 0..<leaf.count where try evaluate(plan, leaf, row, table) { keys.append(leaf.key(row)) }
            }
            // Whole leaves: the keys stay the first matches in key order, perhaps more than `limit`.
            return limit.map { keys.count < $0 } ?? true
        }
        return keys
    }

    /// How many objects of `table` match `plan` (without collecting their keys).
    package func count(_ plan: QueryPlan, in table: Table) throws -> Int {
        if let (candidates, exact) = try indexCandidates(plan, table) {
            return exact ? candidates.count : try matchingKeys(plan, in: table).count
        }
        let scan = ColumnScan(plan)
        var count = 0
        try source.forEachCluster(in: root(table.tree), prefetching: scan?.columns ?? []) { leaf in
            if let scan, scan.applies(to: leaf) {
                count += leaf.countSelected(scan.tests)
            } else {
                for row in 0..<leaf.count where try evaluate(plan, leaf, row, table) { count += 1 }
            }
            return true
        }
        return count
    }

    /// Whether object `key` of `table` matches `plan` (false if it does not exist).
    package func matches(_ plan: QueryPlan, key: UInt64, in table: Table) throws -> Bool {
        guard let (leaf, row) = try source.row(in: root(table.tree), key: key) else { return false }
        return try evaluate(plan, leaf, row, table)
    }

    // MARK: One object

    /// Whether the object at `row` of `leaf` (of `table`) matches.
    package func evaluate(_ plan: QueryPlan, _ leaf: ClusterLeaf, _ row: Int, _ table: Table) throws -> Bool {
        switch plan {
        case .constant(let value):
            return value
        case .and(let operands):
            for operand in operands where try !evaluate(operand, leaf, row, table) { return false }
            return true
        case .or(let operands):
            for operand in operands where try evaluate(operand, leaf, row, table) { return true }
            return false
        case .not(let operand):
            return try !evaluate(operand, leaf, row, table)
        case .compare(let comparison):
            if let direct = directComparison(comparison, leaf, row) { return direct }
            return try evaluateComparison(comparison, leaf, row)
        case .subquery(let path, let target, let predicate, let op, let count):
            let targets = try objects(at: path, leaf, row)
            var matching = 0
            for key in targets where try matches(predicate, key: key, in: target) { matching += 1 }
            return QueryComparisons.compareOrdered(Double(matching), op, count)
        }
    }

    /// The fast path: a number, date or boolean property of the object itself against a constant,
    /// read in place. Nil when the comparison is not of that shape.
    @inline(__always)
    private func directComparison(_ comparison: BoundComparison, _ leaf: ClusterLeaf, _ row: Int) -> Bool? {
        guard comparison.path.hops.isEmpty, comparison.path.aggregate == nil, !comparison.isMembership,
              case .value(let right) = comparison.right else { return nil }
        let property = comparison.path.last.property
        let column = comparison.path.last.column
        guard property.collection == nil, comparison.path.last.nested.isEmpty, column < leaf.columnCount else { return nil }
        if leaf.isNull(row, column) {
            return QueryComparisons.compare(.null, comparison.op, right, kind: property.kind, options: comparison.options)
        }
        switch (property.kind, right) {
        case (.int, .int(let value)): return QueryComparisons.compareOrdered(leaf.int(row, column), comparison.op, value)
        case (.int, .double(let value)): return QueryComparisons.compareOrdered(Double(leaf.int(row, column)), comparison.op, value)
        case (.double, .double(let value)), (.date, .double(let value)):
            return QueryComparisons.compareOrdered(leaf.double(row, column), comparison.op, value)
        case (.float, .double(let value)): return QueryComparisons.compareOrdered(Double(leaf.float(row, column)), comparison.op, value)
        case (.bool, .bool(let value)):
            let stored = leaf.bool(row, column)
            return comparison.op == .equal ? stored == value : comparison.op == .notEqual ? stored != value : false
        default: return nil
        }
    }

    private func evaluateComparison(_ comparison: BoundComparison, _ leaf: ClusterLeaf, _ row: Int) throws -> Bool {
        let kind = comparison.path.valueKind
        let left = try values(at: comparison.path, leaf, row)
        let rights: [ColumnValue]
        switch comparison.right {
        case .value(let value): rights = [value]
        case .values(let values): rights = values
        case .path(let path): rights = try values(at: path, leaf, row)
        }
        let options = comparison.options
        if comparison.isOrderedList {
            // realm-core's ordered list matching: as many values, each pair matching.
            let equal = comparison.op == .notEqual ? QueryOperator.equal : comparison.op
            let matches = !left.isEmpty && left.count == rights.count
                && zip(left, rights).allSatisfy { QueryComparisons.compare($0, equal, $1, kind: kind, options: options) }
            return comparison.op == .notEqual ? !matches : matches
        }
        func test(_ value: ColumnValue, against right: ColumnValue) -> Bool {
            QueryComparisons.compare(value, comparison.op, right, kind: kind, options: options)
        }
        func test(_ value: ColumnValue) -> Bool {
            if let quantifier = comparison.valuesModifier {  // `age == ANY {1, 2}`
                switch quantifier {
                case .any: return rights.contains { test(value, against: $0) }
                case .all: return rights.allSatisfy { test(value, against: $0) }
                case .none: return !rights.contains { test(value, against: $0) }
                }
            }
            switch comparison.op {
            case .in:
                return rights.contains { QueryComparisons.compare(value, .equal, $0, kind: kind, options: options) }
            case .between:
                return rights.count == 2
                    && QueryComparisons.compare(value, .greaterOrEqual, rights[0], kind: kind, options: [])
                    && QueryComparisons.compare(value, .lessOrEqual, rights[1], kind: kind, options: [])
            default:
                if case .path = comparison.right {  // property against property: any pair
                    return rights.contains { test(value, against: $0) }
                }
                return test(value, against: rights.first ?? .null)
            }
        }
        func holds(_ test: (ColumnValue) -> Bool) -> Bool {
            guard comparison.path.isMultiValued else { return test(left.first ?? .null) }
            switch comparison.modifier {
            case .any: return left.contains(where: test)
            case .all: return left.allSatisfy(test)
            case .none: return !left.contains(where: test)
            }
        }
        if comparison.valuesFirst, let quantifier = comparison.valuesModifier {
            // `ALL {1, 2} IN ages`: the list's quantifier outside the path's.
            func one(_ right: ColumnValue) -> Bool { holds { test($0, against: right) } }
            switch quantifier {
            case .any: return rights.contains(where: one)
            case .all: return rights.allSatisfy(one)
            case .none: return !rights.contains(where: one)
            }
        }
        return holds(test)
    }
}
