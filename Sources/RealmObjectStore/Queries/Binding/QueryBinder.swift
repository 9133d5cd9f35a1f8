import Foundation

/// The binder's state: the catalog and the `SUBQUERY` variables in scope.
///
/// Binding goes expression by expression (here), resolving each key path against the schema
/// (`QueryBinder+KeyPaths.swift`), type-checking and converting the other side
/// (`QueryBinder+TypeChecking.swift`), and binding subqueries (`QueryBinder+Subquery.swift`).
/// (Private to one file while the binder was one; internal now only so that its files share
/// it. Only ``QueryPlan/bind(_:to:catalog:)`` and ``BoundPath/resolve(_:in:catalog:)`` make one.)
struct QueryBinder {
    let catalog: SchemaCatalog
    var variables: [String: Table]

    mutating func bind(_ expression: QueryExpression, _ table: Table) throws -> QueryPlan {
        switch expression {
        case .constant(let value): return .constant(value)
        case .and(let operands): return .and(try operands.map { try bind($0, table) })
        case .or(let operands): return .or(try operands.map { try bind($0, table) })
        case .not(let operand): return .not(try bind(operand, table))
        case .comparison(let comparison): return try bind(comparison, table)
        }
    }

    mutating func bind(_ comparison: QueryComparison, _ table: Table) throws -> QueryPlan {
        let position = comparison.position
        // SUBQUERY(...).@count op value
        if case .subqueryCount(let collection, let variable, let predicate, let subPosition) = comparison.left {
            return try bindSubquery(comparison, collection: collection, variable: variable, predicate: predicate,
                                    at: subPosition, table)
        }
        var left = comparison.left
        var right = comparison.right
        var op = comparison.op
        var isMembership = false
        // `value IN list` and `list CONTAINS value` test membership of a value in a collection.
        if case .value = left, case .keyPath = right, op == .in {
            swap(&left, &right)
            isMembership = true
        }
        guard case .keyPath(let components, let aggregate, let pathPosition) = left else {
            throw QueryError("Expected a property name on one side of '\(comparison.op.rawValue)'", at: position)
        }
        let path = try resolve(components, aggregate: aggregate, from: table, at: pathPosition)
        // (`map.@keys CONTAINS 'e'` and `map.@values CONTAINS 'e'` search each key or value, as Realm
        // Swift's `$0.map.keys.contains("e")` means; so does a written modifier, `ALL tags CONTAINS
        // 'e'`: every tag holds an 'e'.)
        if op == .contains, comparison.modifier == nil, path.last.property.collection != nil, path.last.isMultiValued,
           path.last.selection == nil, aggregate == nil, case .value = right {
            isMembership = true
            op = .equal
        }
        if isMembership { op = .equal }
        if aggregate == .type { return try bindType(comparison, path: path, op: op, at: position) }
        let kind = path.valueKind
        let name = components.joined(separator: ".")
        if let modifier = comparison.modifier, !path.isMultiValued {
            // realm-core's message (test_parser.cpp, "ANY fav_item.name == 'milk'").
            throw QueryError("The keypath following '\(modifier.rawValue)' must contain a list", at: pathPosition)
        }
        var valuesModifier: QueryCollectionModifier?
        var isOrderedList = false
        let bound: BoundOperand
        switch right {
        case .value(let value):
            bound = .value(try convert(value, to: kind, path: path, name: name, at: position))
        case .values(let values):
            if op == .between, values.count != 2 {
                throw QueryError("BETWEEN needs exactly two values, {low, high}, but got \(values.count)", at: position)
            }
            if op == .between, comparison.valuesModifier != nil {
                throw QueryError("BETWEEN takes {low, high}, not a list with \(comparison.valuesModifier!.rawValue)", at: position)
            }
            if op == .in, let modifier = comparison.valuesModifier {
                op = .equal  // `age IN ALL {…}` is `age == ALL {…}`
                valuesModifier = modifier
            } else if op != .in && op != .between {
                if comparison.valuesModifier == nil && comparison.modifier == nil {
                    isOrderedList = true
                } else {
                    valuesModifier = comparison.valuesModifier ?? .any
                }
            }
            bound = .values(try values.map { try convert($0, to: kind, path: path, name: name, at: position) })
        case .keyPath(let otherComponents, let otherAggregate, let otherPosition):
            let other = try resolve(otherComponents, aggregate: otherAggregate, from: table, at: otherPosition)
            guard comparable(kind, other.valueKind) else {
                throw QueryError("Cannot compare '\(name)' (\(kind.rawValue)) with '\(otherComponents.joined(separator: "."))' (\(other.valueKind.rawValue))", at: position)
            }
            bound = .path(other)
        case .subqueryCount:
            throw QueryError("SUBQUERY can only be on the left of a comparison", at: position)
        }
        try check(op, on: kind, path: path, name: name, options: comparison.options, at: position)
        return .compare(BoundComparison(path: path, op: op, right: bound, options: comparison.options,
                                        modifier: comparison.modifier ?? .any, isMembership: isMembership,
                                        valuesModifier: valuesModifier, valuesFirst: comparison.valuesFirst && valuesModifier != nil,
                                        isOrderedList: isOrderedList))
    }
}
