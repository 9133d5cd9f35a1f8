import Foundation

/// One step of a key path: a column of a table, or (for `LinkingObjects`) the way back along a
/// link column of another table.
package struct PathStep: Sendable {
    package let table: Table
    package let column: Int
    package let property: PropertyInfo
    /// The table a link property links to (for a backlink step: the linking table, `table`).
    package let target: Table?
    /// A `LinkingObjects` step: from an object to the objects of `table` whose `column` links
    /// to it (found in that column's link index). `from` is the table stepped from.
    package var backlinkFrom: Table? = nil
    /// Which elements of the collection the step keeps (a subscript, a map's keys); nil: all.
    package var selection: PathSelection? = nil
    /// For an `AnyRealmValue` property (or each element of a collection of them): the steps
    /// into collections nested in the value (`value[0]['key'][*]`, `value.key`), applied in
    /// order; nil is `[*]`. A value that is not a collection of the right kind has no elements.
    package var nested: [PathSelection?] = []

    /// Whether the step reaches several values (a collection, or linking objects, unless a
    /// subscript picks one element; a `[*]`, `@keys` or `@values` into a nested collection).
    var isMultiValued: Bool {
        if backlinkFrom != nil { return true }
        if nested.contains(where: { $0 == nil || $0 == .keys || $0 == .values }) { return true }
        guard property.collection != nil else { return false }
        switch selection {
        case .first?, .last?, .index?, .key?: return false
        case .keys?, .values?, nil: return true
        }
    }

    /// Whether an aggregate applies to each value the step reaches rather than to them all:
    /// `@type`, and `@count` of nested collections (`value.@count`, `list[*][*].@count`).
    func aggregatesEachValue(_ aggregate: QueryAggregate?) -> Bool {
        switch aggregate {
        case .type?: true
        case .count?:
            // (`values[0].@count` counts the collection the element holds, `values.@count` the elements.)
            property.kind == .mixed && (property.collection == nil || !nested.isEmpty || !isMultiValued)
        default: false
        }
    }
}

/// The elements of a collection a path step keeps: `list[FIRST]`, `list[LAST]`, `list[2]`,
/// `map['key']`, `map.@keys`, `map.@values`.
package enum PathSelection: Sendable, Equatable {
    case first
    case last
    case index(Int)
    /// The value of the key (its UTF-8 bytes, as the map stores keys).
    case key([UInt8])
    case keys
    case values
}
