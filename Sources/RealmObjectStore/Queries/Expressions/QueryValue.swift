import Foundation

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

/// An argument of a query string: `%@`, `%d`, `%f` and `$0` take values, `%K` takes a key path.
package enum QueryArgument: Equatable, Sendable {
    case value(QueryValue)
    /// An array of values (`name IN %@`, `age == ANY $0`): a list of values, as `{…}` writes it.
    case values([QueryValue])
    case keyPath(String)
}
