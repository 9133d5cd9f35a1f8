import Foundation

/// A predicate bound to a table: every key path resolved to columns (following links), every
/// constant checked against and converted to its property's stored form. Made by
/// ``QueryPlan/bind(_:to:catalog:)``; evaluated by ``QueryEvaluator``.
package indirect enum QueryPlan: Sendable {
    case constant(Bool)
    case and([QueryPlan])
    case or([QueryPlan])
    case not(QueryPlan)
    case compare(BoundComparison)
    /// `SUBQUERY(path, $x, predicate).@count op value`; `target` is the table `path` links to.
    case subquery(path: BoundPath, target: Table, predicate: QueryPlan, op: QueryOperator, count: Double)
}

extension QueryPlan {
    /// Resolves `expression` against `table`. Throws ``QueryError`` naming the position and the
    /// problem: an unknown property, a link followed through a non-link, a value of the wrong
    /// type, an operator the property's type does not support.
    package static func bind(_ expression: QueryExpression, to table: Table, catalog: SchemaCatalog) throws -> QueryPlan {
        var binder = QueryBinder(catalog: catalog, variables: [:])
        return try binder.bind(expression, table)
    }
}

extension QueryPlan {
    /// Whether an object's match depends only on its own values and the objects it links to
    /// (no `LinkingObjects` step, no subquery): then editing an object can change only its own
    /// match, and a result can be brought up to date by re-checking just the edited objects.
    package var dependsOnlyOnOutgoingLinks: Bool {
        switch self {
        case .constant: return true
        case .and(let operands), .or(let operands): return operands.allSatisfy(\.dependsOnlyOnOutgoingLinks)
        case .not(let operand): return operand.dependsOnlyOnOutgoingLinks
        case .subquery: return false
        case .compare(let comparison):
            if case .path(let path) = comparison.right, !path.followsOnlyOutgoingLinks { return false }
            return comparison.path.followsOnlyOutgoingLinks
        }
    }
}
