import Foundation

// Candidates from an index: equality and `IN` on an indexed property or the primary key, and
// ranges on an indexed integer or date.
extension QueryEvaluator {
    /// Keys that may match, from an index, in key order; nil when no index applies. `exact`
    /// when they are exactly the matches of the whole plan: one equality whose value the index
    /// holds in full (not a string cut to the key limit, not NaN), so nothing needs checking.
    /// (Internal, not private: the whole-table functions in `QueryEvaluator.swift` call it.)
    func indexCandidates(_ plan: QueryPlan, _ table: Table) throws -> (keys: [UInt64], exact: Bool)? {
        switch plan {
        case .and(let operands):
            for operand in operands { if let (keys, _) = try indexCandidates(operand, table) { return (keys, false) } }
            return nil
        case .compare(let comparison):
            guard comparison.path.hops.isEmpty, comparison.path.aggregate == nil, !comparison.isMembership,
                  comparison.options.isEmpty, comparison.path.last.property.collection == nil,
                  !comparison.path.last.property.canLink else { return nil }
            let values: [ColumnValue]
            switch (comparison.op, comparison.right) {
            case (.equal, .value(let value)): values = [value]
            case (.in, .values(let list)): values = list
            default: return try rangeCandidates(comparison, table).map { ($0, false) }
            }
            let column = comparison.path.last.column
            if table.primaryKeyIsObjectKey && column == table.primaryKeyColumn {
                var keys: [UInt64] = []
                for value in values {
                    switch value {
                    case .int(let int): keys.append(UInt64(bitPattern: int))
                    case .null: keys.append(UInt64(bitPattern: Int64.min))
                    default: return nil  // a double: not an exact key
                    }
                }
                return (Array(Set(keys)).sorted(), false)  // keys that may not exist
            }
            guard let index = table.indexes[column] else { return nil }
            if values.count == 1, values[0].matches(table.layout[column]) {
                // One value: the index lists its objects in key order already (value ‖ key).
                let encoded = try IndexKey.encode(values[0], table.layout[column], kind: comparison.path.last.property.kind)
                let exact = encoded.count < IndexKey.maximumValueLength - 2 && !values[0].isNaN
                    && comparison.path.last.property.kind != .mixed
                return (try source.indexObjectKeys(root(index), matching: encoded), exact)
            }
            var keys = Set<UInt64>()
            for value in values {
                guard value.matches(table.layout[column]) else { return nil }  // e.g. a double for an int
                let encoded = try IndexKey.encode(value, table.layout[column], kind: comparison.path.last.property.kind)
                keys.formUnion(try source.indexObjectKeys(root(index), matching: encoded))
            }
            return (keys.sorted(), false)
        default:
            return nil
        }
    }

    /// Keys from an index range scan for `<`, `<=`, `>`, `>=` and BETWEEN on an indexed integer
    /// or date property; nil when no index applies or the range holds more than a sixteenth of
    /// the table (then one pass over the column is cheaper than fetching rows one by one).
    private func rangeCandidates(_ comparison: BoundComparison, _ table: Table) throws -> [UInt64]? {
        let column = comparison.path.last.column
        let kind = comparison.path.last.property.kind
        guard let index = table.indexes[column], kind == .int || kind == .date else { return nil }
        func encoded(_ value: ColumnValue) -> [UInt8]? {
            switch (kind, value) {
            case (.int, .int(let int)): IndexKey.int(int)
            case (.date, .double(let seconds)): IndexKey.double(seconds)
            default: nil
            }
        }
        var lower: ([UInt8], Bool)?
        var upper: ([UInt8], Bool)?
        switch (comparison.op, comparison.right) {
        case (.less, .value(let value)): guard let bound = encoded(value) else { return nil }; upper = (bound, false)
        case (.lessOrEqual, .value(let value)): guard let bound = encoded(value) else { return nil }; upper = (bound, true)
        case (.greater, .value(let value)): guard let bound = encoded(value) else { return nil }; lower = (bound, false)
        case (.greaterOrEqual, .value(let value)): guard let bound = encoded(value) else { return nil }; lower = (bound, true)
        case (.between, .values(let bounds)) where bounds.count == 2:
            guard let low = encoded(bounds[0]), let high = encoded(bounds[1]) else { return nil }
            (lower, upper) = ((low, true), (high, true))
        default: return nil
        }
        let tableRoot = try root(table.tree)
        let limit = max(64, Int(tableRoot.count / 16))
        let length = kind == .int ? IndexKey.int(0).count : IndexKey.double(0).count
        return try source.indexObjectKeys(root(index), from: lower?.0, inclusive: lower?.1 ?? true, to: upper?.0,
                                          inclusive: upper?.1 ?? true, length: length, limit: limit)?.sorted()
    }
}

private extension ColumnValue {
    /// Whether this is a NaN (which equals nothing, though the index files every NaN together).
    var isNaN: Bool {
        switch self {
        case .double(let value): value.isNaN
        case .float(let value): value.isNaN
        default: false
        }
    }
}
