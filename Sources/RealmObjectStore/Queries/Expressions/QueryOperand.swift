import Foundation

/// One side of a comparison.
package indirect enum QueryOperand: Equatable, Sendable {
    /// A key path from the queried object (`age`, `owner.name`, `dogs.age`), optionally ending in
    /// an aggregate (`dogs.@count`, `dogs.@avg.age` is written `dogs.age.@avg` or `dogs.@avg.age`:
    /// both parse to path `["dogs", "age"]` with `.average`). Inside a `SUBQUERY`, a path starting
    /// with the subquery's variable (`$x.age`) has that variable as its first component. A
    /// subscript is a component of its own (``QuerySubscript/component``), as are a map's
    /// `@keys` and `@values`.
    case keyPath([String], aggregate: QueryAggregate?, position: Int)
    /// A literal or an argument.
    case value(QueryValue)
    /// `{a, b, c}`: the right side of `IN` and `BETWEEN`.
    case values([QueryValue])
    /// `SUBQUERY(collection, $variable, predicate).@count`.
    case subqueryCount(collection: [String], variable: String, predicate: QueryExpression, position: Int)
}

/// `@count`, `@min`, `@max`, `@sum`, `@avg` at the end of a key path to a collection (or, for
/// `@count`/`@size`, to a string or data: its length; to an `AnyRealmValue`: the size of the
/// collection it holds), and `@type` after an `AnyRealmValue`.
package enum QueryAggregate: String, Equatable, Sendable {
    case count = "@count"
    case min = "@min"
    case max = "@max"
    case sum = "@sum"
    case average = "@avg"
    /// `@type`: the type name of each `AnyRealmValue` reached (see ``QueryValueType``).
    case type = "@type"
}
