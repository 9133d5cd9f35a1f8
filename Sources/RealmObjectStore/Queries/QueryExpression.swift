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

/// `left op right`, with its options.
package struct QueryComparison: Equatable, Sendable {
    package var left: QueryOperand
    package var op: QueryOperator
    package var right: QueryOperand
    /// `[c]`, `[d]`, `[cd]` after a string operator.
    package var options: QueryStringOptions
    /// `ANY`/`ALL`/`NONE` before a key path through a collection; nil means ANY, as in Realm.
    package var modifier: QueryCollectionModifier?
    /// `ANY`/`ALL`/`NONE` before a list of values on the right (`age == ANY {1, 2}`, `name IN ALL
    /// $0`): how the comparisons with its values combine. Nil: `IN` means any; `==` and the other
    /// operators compare the list in order with the key path's values when neither side has a
    /// modifier (realm-core's ordered list matching), and mean ANY otherwise.
    package var valuesModifier: QueryCollectionModifier?
    /// Whether the list of values was written first (`ALL {1, 2} IN prices`): its modifier is
    /// then the outer one — every value is in the prices — rather than the key path's.
    package var valuesFirst: Bool
    /// Where the comparison starts in the query string.
    package var position: Int

    package init(_ left: QueryOperand, _ op: QueryOperator, _ right: QueryOperand,
                 options: QueryStringOptions = .plain, modifier: QueryCollectionModifier? = nil,
                 valuesModifier: QueryCollectionModifier? = nil, valuesFirst: Bool = false, position: Int = 0) {
        self.left = left
        self.op = op
        self.right = right
        self.options = options
        self.modifier = modifier
        self.valuesModifier = valuesModifier
        self.valuesFirst = valuesFirst
        self.position = position
    }
}

/// The comparison operators of the Realm Query Language.
package enum QueryOperator: String, Equatable, Sendable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    /// On strings: substring. On collections (`list CONTAINS value`): membership.
    case contains = "CONTAINS"
    /// `?` matches one character, `*` any run.
    case like = "LIKE"
    /// `value IN {a, b}` or `value IN list`; the right side is a `.values` list or a key path.
    case `in` = "IN"
    /// `value BETWEEN {low, high}` (inclusive); the right side is a two-element `.values` list.
    case between = "BETWEEN"
}

/// `[c]` (case-insensitive), `[d]` (diacritic-insensitive).
package struct QueryStringOptions: OptionSet, Equatable, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    package static let caseInsensitive = QueryStringOptions(rawValue: 1)
    package static let diacriticInsensitive = QueryStringOptions(rawValue: 2)
    /// No options. (Other modules use this rather than `[]`: the literal goes through generic
    /// `SetAlgebra` code that is not specialized across modules, which showed up per query.)
    package static var plain: QueryStringOptions { QueryStringOptions(rawValue: 0) }
}

/// `ANY`, `ALL`, `NONE`: how a comparison through a collection combines its elements.
package enum QueryCollectionModifier: String, Equatable, Sendable {
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
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

/// A subscript in a key path (`scores[FIRST]`, `dogs[2].name`, `prices['eur']`, `dogs[SIZE]`),
/// carried in the path as a component of its own (``component``): property names never start
/// with `[`, so nothing else reads as one.
package enum QuerySubscript: Equatable, Sendable {
    /// `[FIRST]`: the first element of a list.
    case first
    /// `[LAST]`: the last element of a list.
    case last
    /// `[n]`: the element at `n` of a list (none when out of range).
    case index(Int)
    /// `[SIZE]`: the number of elements (`@count`).
    case size
    /// `[*]`: every element (what the path means without a subscript).
    case all
    /// `['key']`: a map's value for the key.
    case key(String)

    /// The subscript as a key path component.
    package var component: String {
        switch self {
        case .first: "[FIRST]"
        case .last: "[LAST]"
        case .index(let index): "[\(index)]"
        case .size: "[SIZE]"
        case .all: "[*]"
        case .key(let key): "['\(key)']"
        }
    }

    /// The subscript a component stands for, if it is one.
    package init?(component: String) {
        guard component.hasPrefix("["), component.hasSuffix("]"), component.count >= 2 else { return nil }
        switch component {
        case "[FIRST]": self = .first
        case "[LAST]": self = .last
        case "[SIZE]": self = .size
        case "[*]": self = .all
        default:
            if component.hasPrefix("['"), component.hasSuffix("']"), component.count >= 4 {
                self = .key(String(component.dropFirst(2).dropLast(2)))
            } else if let index = Int(component.dropFirst().dropLast()), index >= 0 {
                self = .index(index)
            } else {
                return nil
            }
        }
    }
}

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

/// A constant in a query: a literal of the language or an argument (`%@`, `$0`).
package enum QueryValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case data([UInt8])
    /// Seconds since 2001-01-01 00:00:00 UTC (a `Date`, or a `T…` / `YYYY-MM-DD@HH:MM:SS` literal).
    case date(Double)
    /// 12 bytes (`oid(…)` literal, or an `ObjectId` argument).
    case objectId([UInt8])
    /// 16 bytes (`uuid(…)` literal, or a `UUID` argument).
    case uuid([UInt8])
    /// A Decimal128's 16 stored bytes (BID), with its value as a `Double` for ordering.
    case decimal128([UInt8], approximately: Double)
    /// A managed object (an argument): its class name and object key.
    case object(className: String, key: UInt64)
    /// Where argument *n*'s value goes, in a ``QueryTemplate``: filled in before binding, so
    /// never seen by the binder.
    case argument(Int)
}

/// A query that cannot be parsed or does not fit the schema: where and what was expected.
package struct QueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Offset in the query string (0 for built queries).
    package var position: Int
    package var message: String

    package init(_ message: String, at position: Int) {
        self.message = message
        self.position = position
    }

    package var description: String { "\(message) (at offset \(position))" }
}

/// An argument of a query string: `%@`, `%d`, `%f` and `$0` take values, `%K` takes a key path.
package enum QueryArgument: Equatable, Sendable {
    case value(QueryValue)
    /// An array of values (`name IN %@`, `age == ANY $0`): a list of values, as `{…}` writes it.
    case values([QueryValue])
    case keyPath(String)
}
