import Foundation

/// The Realm Query Language parser: NSPredicate-style strings into a ``QueryExpression``.
///
/// A hand-written tokenizer and recursive-descent parser over the UTF-8 bytes (offsets in errors
/// are byte offsets). Precedence, lowest first: `OR`/`||`, `AND`/`&&`, `NOT`/`!`, then a
/// comparison or a parenthesized predicate. Keywords are case-insensitive. A comparison whose
/// left side is a constant and right side a key path is turned around (`3 < age` is
/// `age > 3`), except `value IN keyPath` (membership). Everything malformed throws a
/// ``QueryError`` saying where and what was expected; nothing in the input can trap.
///
/// After the predicate may come Realm's descriptors, applied in the order written (see
/// ``QueryDescriptor``): `SORT(keyPath ASC|DESC, …)` (also `ASCENDING`, `DESCENDING`),
/// `DISTINCT(keyPath, …)` and `LIMIT(n)` with `n` a non-negative integer. Their key paths are
/// checked against a schema by the caller, as a predicate's are by the binder.
package enum QueryParser {
    /// A predicate with no descriptors after it (a descriptor throws).
    package static func parse(_ text: String, arguments: [QueryArgument] = []) throws -> QueryExpression {
        let parsed = try parsePredicate(text, arguments: arguments)
        guard parsed.ordering.isEmpty else {
            throw QueryError("SORT, DISTINCT and LIMIT are not allowed in this predicate", at: 0)
        }
        return parsed.expression
    }

    /// A predicate and the descriptors written after it.
    package static func parsePredicate(_ text: String, arguments: [QueryArgument] = []) throws -> ParsedPredicate {
        var parser = PredicateParser(bytes: Array(text.utf8), arguments: arguments)
        let expression = try parser.parseOr()
        let ordering = try parser.parseDescriptors()
        guard parser.peek() == .end else {
            throw QueryError("Expected the end of the predicate but found \(parser.peek().description)", at: parser.peekPosition())
        }
        return ParsedPredicate(expression: expression, ordering: ordering)
    }
}

/// What ``QueryParser/parsePredicate(_:arguments:)`` reads: the predicate, and the descriptors
/// after it in the order written.
package struct ParsedPredicate: Sendable, Equatable {
    package var expression: QueryExpression
    package var ordering: [QueryDescriptor]

    package init(expression: QueryExpression, ordering: [QueryDescriptor] = []) {
        self.expression = expression
        self.ordering = ordering
    }
}
