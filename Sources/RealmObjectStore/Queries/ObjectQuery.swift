/// A query over the objects of one class, described without a version so that it can be
/// evaluated at any (by a handle at its version, by the notifier at each new one): where the
/// objects come from, a predicate, distinct key paths and sort keys. Evaluated by
/// ``QueryContext/keys(of:plan:in:limit:)``: the base's objects matching the predicate (in base
/// order), then the first of each distinct combination, then sorted.
package struct ObjectQuery: Sendable, Equatable {
    /// The class queried.
    package var className: String
    /// Where the candidate objects come from.
    package var base: QueryBase
    /// The conjunction of every filter applied, or nil.
    package var predicate: QueryExpression?
    /// Key paths whose combination of values must be distinct (the first object in order is kept).
    package var distinct: [String]
    /// Sort keys, in order of precedence; empty: base order.
    package var sort: [SortKey]

    package init(className: String, base: QueryBase = .table, predicate: QueryExpression? = nil,
                 distinct: [String] = [], sort: [SortKey] = []) {
        self.className = className
        self.base = base
        self.predicate = predicate
        self.distinct = distinct
        self.sort = sort
    }

    /// Whether the objects come out in ascending key order: a whole table's, neither sorted nor
    /// made distinct (what keys can then be searched by binary search).
    package var isInKeyOrder: Bool { base.isTable && sort.isEmpty && distinct.isEmpty }
}

/// Where the objects of a query come from before filtering: a description, not a closure, so
/// it can be evaluated at any version.
package enum QueryBase: Sendable, Equatable {
    /// Every object of the table.
    case table
    /// The objects a list, set or map of links holds, in its order (none once the owner is deleted).
    case collection(ownerClass: String, ownerKey: UInt64, property: String)
    /// The objects of `originClass` whose `property` links to an object (none once it is deleted).
    case linkingObjects(targetClass: String, targetKey: UInt64, originClass: String, property: String)
    /// Fixed objects (frozen results refined further).
    case keys([UInt64])

    package var isTable: Bool {
        if case .table = self { return true }
        return false
    }
}

/// One key of a sort: a key path (through to-one links) and a direction. The order of values is
/// ``SortKeyColumn``'s.
package struct SortKey: Sendable, Hashable {
    package var keyPath: String
    package var ascending: Bool

    package init(keyPath: String, ascending: Bool) {
        self.keyPath = keyPath
        self.ascending = ascending
    }
}
