import Foundation

/// A query predicate as written — by the Realm Query Language parser (``QueryParser``) or by the
/// type-safe `where { }` builder — before it is checked against a schema.
///
/// Both front ends produce this tree, so they mean the same thing; ``QueryBinder`` then resolves
/// property names against a table (types, links, indexes) into an executable plan. Positions are
/// offsets in the query string (0 for built queries), for error messages.
package indirect enum QueryExpression: Equatable, Sendable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    /// Every operand holds (an empty `and` is true).
    case and([QueryExpression])
    /// Any operand holds (an empty `or` is false).
    case or([QueryExpression])
    case not(QueryExpression)
    /// `left op right`.
    case comparison(QueryComparison)
}
