import Foundation
package import RealmStorage

/// `path op right`, ready to evaluate.
package struct BoundComparison: Sendable {
    package var path: BoundPath
    package var op: QueryOperator
    package var right: BoundOperand
    package var options: QueryStringOptions
    package var modifier: QueryCollectionModifier
    /// `value IN list`: the path is the collection, the value is the single right value.
    package var isMembership: Bool
    /// How the comparisons with a list of values combine (`age == ANY {1, 2}`); nil for `IN` and
    /// `BETWEEN` (their own meaning) and for ordered list matching.
    package var valuesModifier: QueryCollectionModifier? = nil
    /// The list's modifier is the outer quantifier (`ALL {1, 2} IN ages`: every value is in ages).
    package var valuesFirst = false
    /// `prices == {1, 2}` with no modifier on either side: the path's values, in order, against
    /// the list's (as many, each pair matching; `!=` is the negation).
    package var isOrderedList = false
}

/// The right side of a bound comparison.
package enum BoundOperand: Sendable {
    case value(ColumnValue)
    case values([ColumnValue])
    case path(BoundPath)
}
