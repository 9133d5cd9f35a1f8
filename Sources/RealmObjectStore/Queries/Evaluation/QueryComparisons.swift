import Foundation
package import RealmStorage

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
