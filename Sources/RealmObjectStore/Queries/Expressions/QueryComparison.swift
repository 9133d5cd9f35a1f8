import Foundation

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

/// `ANY`, `ALL`, `NONE`: how a comparison through a collection combines its elements.
package enum QueryCollectionModifier: String, Equatable, Sendable {
    case any = "ANY"
    case all = "ALL"
    case none = "NONE"
}
