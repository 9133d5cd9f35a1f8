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

    /// Keys that may match, from an index, in key order; nil when no index applies. `exact`
    /// when they are exactly the matches of the whole plan: one equality whose value the index
    /// holds in full (not a string cut to the key limit, not NaN), so nothing needs checking.
    private func indexCandidates(_ plan: QueryPlan, _ table: Table) throws -> (keys: [UInt64], exact: Bool)? {
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

    // MARK: Paths

    /// The values a path reaches from an object (one for a plain property; the elements of
    /// collections it goes through; one aggregate if it ends in one).
    package func values(at path: BoundPath, _ leaf: ClusterLeaf, _ row: Int) throws -> [ColumnValue] {
        var rows = [(leaf, row)]
        for hop in path.hops {
            if let from = hop.backlinkFrom {
                rows = try backlinkRows(hop, from: from, rows)
                continue
            }
            guard let target = hop.target else { return [] }
            let targetRoot = try root(target.tree)
            var next: [(ClusterLeaf, Int)] = []
            for (currentLeaf, currentRow) in rows {
                let value = try source.value(currentLeaf, row: currentRow, column: hop.column, spec: hop.table.layout[hop.column])
                let keys = hop.selection == nil ? hop.table.linkedKeys(value, column: hop.column)
                    : Self.elements(of: value, hop).compactMap { if case .int(let key) = $0 { UInt64(bitPattern: key) } else { nil } }
                for key in keys {
                    if let found = try source.row(in: targetRoot, key: key) { next.append(found) }
                }
            }
            rows = next
        }
        let last = path.last
        if let from = last.backlinkFrom {  // `owners.@count`, `owners == nil`: the linking objects' keys
            let keys = try backlinkRows(last, from: from, rows).map { ColumnValue.int(Int64(bitPattern: $0.0.key($0.1))) }
            guard let aggregate = path.aggregate else { return keys }
            return [QueryComparisons.aggregate(aggregate, of: keys, kind: .object, isCollection: true)]
        }
        var gathered: [ColumnValue] = []
        for (currentLeaf, currentRow) in rows {
            let value = try source.value(currentLeaf, row: currentRow, column: last.column, spec: last.table.layout[last.column])
            switch (last.property.collection, value) {
            case (nil, _): gathered.append(value)
            case (_, .bytes) where last.selection != nil: gathered += Self.elements(of: value, last)
            case (.map?, .bytes(let bytes)): gathered += PackedCollection.entries(PackedCollection.decode(bytes)).map(\.value)
            case (_, .bytes(let bytes)): gathered += PackedCollection.decode(bytes)
            default: break
            }
        }
        if !last.nested.isEmpty { gathered = gathered.flatMap { Self.nestedValues(of: $0, last.nested[...]) } }
        guard let aggregate = path.aggregate else { return gathered }
        if last.aggregatesEachValue(aggregate) {
            return gathered.map { value in
                if aggregate == .type { return .bytes(Array(QueryValueType.name(ofMixed: value).utf8)) }
                guard let container = MixedPath.container(value) else { return .null }
                return .int(Int64(container.isMap ? container.elements.count / 2 : container.elements.count))
            }
        }
        // (To-one hops reach one value: `friend.name.@count` is the length of the friend's name.)
        return [QueryComparisons.aggregate(aggregate, of: gathered, kind: last.property.kind,
                                           isCollection: last.property.collection != nil || path.hops.contains(where: \.isMultiValued))]
    }

    /// The values `selections` reach inside a stored mixed value (see ``PathStep/nested``): a
    /// dictionary's keys as mixed strings, nothing where a step does not fit the value.
    static func nestedValues(of value: ColumnValue, _ selections: ArraySlice<PathSelection?>) -> [ColumnValue] {
        guard let selection = selections.first else { return [value] }
        guard let (isMap, all) = MixedPath.container(value) else { return [] }
        let values = isMap ? stride(from: 1, to: all.count, by: 2).map { all[$0] } : all
        let picked: [ColumnValue]
        switch selection {
        case nil, .values?: picked = values
        case .first?: picked = isMap ? [] : Array(all.prefix(1))
        case .last?: picked = isMap ? [] : Array(all.suffix(1))
        case .index(let index)?: picked = !isMap && index < all.count ? [all[index]] : []
        case .key(let key)?:
            picked = isMap ? stride(from: 0, to: all.count - 1, by: 2).filter { all[$0] == .bytes(key) }.map { all[$0 + 1] } : []
        case .keys?:
            guard isMap else { return [] }
            return stride(from: 0, to: all.count - 1, by: 2).compactMap {
                guard case .bytes(let key) = all[$0] else { return nil }
                return MixedValue.value(.string, .bytes(key)).stored
            }
        }
        return picked.flatMap { nestedValues(of: $0, selections.dropFirst()) }
    }

    /// The elements of a collection value that `step.selection` keeps (a map's elements are key,
    /// value, key, value…).
    static func elements(of value: ColumnValue, _ step: PathStep) -> [ColumnValue] {
        guard case .bytes(let bytes) = value else { return [] }
        let all = PackedCollection.decode(bytes)
        let isMap = step.property.collection == .map
        switch step.selection {
        case .first?: return all.first.map { [$0] } ?? []
        case .last?: return all.last.map { [$0] } ?? []
        case .index(let index)?: return index < all.count ? [all[index]] : []
        case .key(let key)?:
            guard isMap else { return [] }
            for index in stride(from: 0, to: all.count - 1, by: 2) where all[index] == .bytes(key) { return [all[index + 1]] }
            return []
        case .keys?: return isMap ? stride(from: 0, to: all.count - 1, by: 2).map { all[$0] } : []
        case .values?: return isMap ? stride(from: 1, to: all.count, by: 2).map { all[$0] } : all
        case nil: return isMap ? stride(from: 1, to: all.count, by: 2).map { all[$0] } : all
        }
    }

    /// The rows of the objects of `step.table` whose `step.column` links to any of `rows` (of
    /// table `from`), found in the column's link index.
    private func backlinkRows(_ step: PathStep, from: Table, _ rows: [(ClusterLeaf, Int)]) throws -> [(ClusterLeaf, Int)] {
        guard let index = step.table.indexes[step.column] else { return [] }
        let indexRoot = try root(index)
        let originRoot = try root(step.table.tree)
        var result: [(ClusterLeaf, Int)] = []
        for (leaf, row) in rows {
            let target = leaf.key(row)
            let keys = try source.linkingObjects(to: target, of: from, from: step.table, column: step.column, indexRoot: indexRoot)
            for key in keys {
                guard let found = try source.row(in: originRoot, key: key) else { continue }
                guard step.property.collection != nil else { result.append(found); continue }
                // The index lists an origin once; Realm has a backlink per link, so an origin
                // whose list holds the object twice is there twice (`owners.@count`).
                let value = try source.value(found.0, row: found.1, column: step.column, spec: step.table.layout[step.column])
                let links = step.table.linkedKeys(value, column: step.column).reduce(0) { $0 + ($1 == target ? 1 : 0) }
                for _ in 0..<max(links, 1) { result.append(found) }
            }
        }
        return result
    }

    /// The keys of the objects a path to a collection of links reaches.
    private func objects(at path: BoundPath, _ leaf: ClusterLeaf, _ row: Int) throws -> [UInt64] {
        var plain = path
        plain.aggregate = nil
        return try values(at: plain, leaf, row).compactMap { value in
            if case .int(let key) = value { UInt64(bitPattern: key) } else { nil }
        }
    }
}

/// How stored values compare, per property kind, as Realm defines it: numbers across widths,
/// strings by Unicode scalars (with `[c]`/`[d]` folding), nil equal only to nil and never
/// ordered.
package enum QueryComparisons {
    /// `lhs op rhs` for two integers or two doubles (`IN` compares one member).
    @inline(__always)
    static func compareOrdered<T: Comparable>(_ lhs: T, _ op: QueryOperator, _ rhs: T) -> Bool {
        switch op {
        case .equal, .in: lhs == rhs
        case .notEqual: lhs != rhs
        case .less: lhs < rhs
        case .lessOrEqual: lhs <= rhs
        case .greater: lhs > rhs
        case .greaterOrEqual: lhs >= rhs
        default: false
        }
    }

    /// `lhs op rhs` for values of a property of `kind`.
    package static func compare(_ lhs: ColumnValue, _ op: QueryOperator, _ rhs: ColumnValue,
                                kind: PropertyKind, options: QueryStringOptions) -> Bool {
        if lhs == .null || rhs == .null {
            switch op {
            case .equal: return lhs == rhs
            case .notEqual: return lhs != rhs
            // A nil needle is the empty string (realm-core, test_parser.cpp Parser_StringOperations
            // and Parser_BinaryData): every value, nil included, contains, begins and ends with it
            // — except that nil data does not CONTAINS[c] it — and only nil is LIKE nil.
            case .contains where rhs == .null:
                return !(kind == .data && options.contains(.caseInsensitive) && lhs == .null)
            case .beginsWith where rhs == .null, .endsWith where rhs == .null: return true
            case .like: return lhs == rhs
            default: return false
            }
        }
        if kind == .mixed { return compareMixed(lhs, op, rhs, options: options) }
        switch (lhs, rhs) {
        case (.int(let a), .int(let b)): return compareOrdered(a, op, b)
        case (.int(let a), .double(let b)): return compareOrdered(Double(a), op, b)
        case (.double(let a), .int(let b)): return compareOrdered(a, op, Double(b))
        case (.double(let a), .double(let b)): return compareOrdered(a, op, b)
        case (.float(let a), .double(let b)): return compareOrdered(Double(a), op, b)
        case (.float(let a), .float(let b)): return compareOrdered(Double(a), op, Double(b))
        case (.double(let a), .float(let b)): return compareOrdered(a, op, Double(b))
        case (.bool(let a), .bool(let b)): return op == .equal ? a == b : op == .notEqual ? a != b : false
        case (.bytes(let a), .bytes(let b)): return compareText(a, op, b, options: options)
        case (.fixed(let a), .fixed(let b)) where kind == .decimal128:
            // Numerically (1.5 == 1.50), not by bits.
            let order = DecimalEncoding.compare(DecimalEncoding.bits(storedBytes: a), DecimalEncoding.bits(storedBytes: b))
            return compareOrdered(order, op, 0)
        case (.fixed(let a), .int), (.fixed(let a), .double), (.fixed(let a), .float):
            // A decimal against a binary number (two properties, or a sum): as the nearest double.
            return a.count == 16 && compare(.double(DecimalEncoding.double(storedBytes: a)), op, rhs, kind: .double, options: options)
        case (.int, .fixed(let b)), (.double, .fixed(let b)), (.float, .fixed(let b)):
            return b.count == 16 && compare(lhs, op, .double(DecimalEncoding.double(storedBytes: b)), kind: .double, options: options)
        case (.fixed(let a), .fixed(let b)):
            switch op {
            case .equal: return a == b
            case .notEqual: return a != b
            default:
                let order: Bool = a.lexicographicallyPrecedes(b)
                switch op {
                case .less: return order
                case .lessOrEqual: return order || a == b
                case .greater: return !order && a != b
                case .greaterOrEqual: return !order
                default: return false
                }
            }
        default:
            return op == .notEqual
        }
    }

    /// Strings (and data) by the operator, folded per `options`.
    static func compareText(_ lhs: [UInt8], _ op: QueryOperator, _ rhs: [UInt8], options: QueryStringOptions) -> Bool {
        let (a, b) = options.isEmpty ? (lhs, rhs) : (QueryText.fold(lhs, options), QueryText.fold(rhs, options))
        switch op {
        case .equal: return a == b
        case .notEqual: return a != b
        case .beginsWith: return a.starts(with: b)
        case .endsWith: return a.count >= b.count && a[(a.count - b.count)...].elementsEqual(b)
        case .contains: return b.isEmpty || QueryText.find(b, in: a)
        case .like: return QueryText.like(a, pattern: b)
        case .less: return a.lexicographicallyPrecedes(b)
        case .lessOrEqual: return !b.lexicographicallyPrecedes(a)
        case .greater: return b.lexicographicallyPrecedes(a)
        case .greaterOrEqual: return !a.lexicographicallyPrecedes(b)
        default: return false
        }
    }

    /// `AnyRealmValue`s: numbers compare across types, strings as strings, others by equality.
    static func compareMixed(_ lhs: ColumnValue, _ op: QueryOperator, _ rhs: ColumnValue, options: QueryStringOptions) -> Bool {
        let (a, b) = (MixedValue(stored: lhs), MixedValue(stored: rhs))
        switch (a, b) {
        case (.value(let kindA, let valueA), .value(let kindB, let valueB)):
            let numbers: Set<PropertyKind> = [.int, .double, .float]
            if numbers.contains(kindA) && numbers.contains(kindB) || kindA == kindB && kindA != .mixed {
                return compare(valueA, op, valueB, kind: kindA == kindB ? kindA : .double, options: options)
            }
            return op == .notEqual
        default:
            return op == .equal ? a == b : op == .notEqual ? a != b : false
        }
    }

    /// `@count`, `@min`, `@max`, `@sum`, `@avg` over gathered values.
    package static func aggregate(_ aggregate: QueryAggregate, of values: [ColumnValue], kind: PropertyKind, isCollection: Bool) -> ColumnValue {
        if aggregate == .count {
            if !isCollection, kind == .string || kind == .data {
                // The length in bytes; a nil string (or none, past a nil link) has no length, as
                // nil has no value: `name.@count == nil` holds, `name.@count < 2` does not.
                guard let first = values.first, case .bytes(let bytes) = first else { return .null }
                return .int(Int64(bytes.count))
            }
            if !isCollection, let first = values.first, case .bytes(let bytes) = first { return .int(Int64(bytes.count)) }
            // Links count the objects linked: a nil to-one link counts 0.
            if kind == .object { return .int(values.reduce(0) { $0 + ($1 == .null ? 0 : 1) }) }
            return .int(Int64(values.count))
        }
        let numbers: [Double] = values.compactMap {
            switch $0 {
            case .int(let int): Double(int)
            case .double(let double): double
            case .float(let float): Double(float)
            case .fixed(let bytes) where kind == .decimal128: DecimalEncoding.double(storedBytes: bytes)
            default: nil
            }
        }
        switch aggregate {
        case .sum:
            if kind == .int { return .int(values.reduce(0) { if case .int(let int) = $1 { $0 &+ int } else { $0 } }) }
            return .double(numbers.reduce(0, +))
        case .average: return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        case .min, .max:
            let nonNull = values.filter { $0 != .null }
            guard var best = nonNull.first else { return .null }
            for value in nonNull.dropFirst() where compare(value, aggregate == .min ? .less : .greater, best, kind: kind, options: []) {
                best = value
            }
            if case .float(let float) = best { return .double(Double(float)) }
            return best
        case .count: return .int(Int64(values.count))
        case .type: return .null  // per value (``PathStep/aggregatesEachValue(_:)``), never of a whole collection
        }
    }
}

/// Text matching for queries: folding for `[c]`/`[d]`, substring search and `LIKE`.
package enum QueryText {
    /// `bytes` (UTF-8) case- and/or diacritic-folded. ASCII folds in place; anything else goes
    /// through Foundation's Unicode folding (every script, beyond Realm's Latin 0–591).
    package static func fold(_ bytes: [UInt8], _ options: QueryStringOptions) -> [UInt8] {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive) else { return bytes }
            return bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        }
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        return Array(String(decoding: bytes, as: UTF8.self).folding(options: folding, locale: nil).utf8)
    }

    /// Whether `needle` occurs in `haystack` (bytes; UTF-8 is self-synchronizing, so a byte
    /// match is a character-sequence match).
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        var index = 0
        while index + needle.count <= haystack.count {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    /// `LIKE`: `?` matches one character, `*` any run of characters (by Unicode scalar).
    static func like(_ text: [UInt8], pattern: [UInt8]) -> Bool {
        let text = Array(String(decoding: text, as: UTF8.self).unicodeScalars)
        let pattern = Array(String(decoding: pattern, as: UTF8.self).unicodeScalars)
        var (t, p) = (0, 0)
        var star: (pattern: Int, text: Int)?
        while t < text.count {
            if p < pattern.count && (pattern[p] == "?" || pattern[p] == text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count && pattern[p] == "*" {
                star = (p, t)
                p += 1
            } else if let current = star {
                p = current.pattern + 1
                t = current.text + 1
                star = (current.pattern, current.text + 1)
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

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
