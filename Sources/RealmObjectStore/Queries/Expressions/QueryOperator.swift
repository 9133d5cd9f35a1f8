import Foundation

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
