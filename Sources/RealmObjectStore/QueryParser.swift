/// Placeholder until the Realm Query Language parser lands (being written on branch
/// `rqlparser`): every string predicate is refused with a clear error.
package enum QueryParser {
    package static func parse(_ text: String, arguments: [QueryArgument] = []) throws -> QueryExpression {
        throw QueryError("String predicates are not supported yet; use where { }", at: 0)
    }
}
