/// A query over the objects of one class, described without a version so that it can be
/// evaluated at any (by a handle at its version, by the notifier at each new one): where the
/// objects come from, a predicate, and an ordering — sorts, distincts and limits applied one
/// after the other, in the order they were added, as Realm's `DescriptorOrdering` applies them.
/// Evaluated by ``QueryContext/keys(of:plan:in:limit:)``: the base's objects matching the
/// predicate (in base order), then each descriptor in turn.
package struct ObjectQuery: Sendable, Equatable {
    /// The class queried.
    package var className: String
    /// Where the candidate objects come from.
    package var base: QueryBase
    /// The conjunction of every filter applied, or nil.
    package var predicate: QueryExpression?
    /// What is done to the matching objects, in order; empty: base order.
    package private(set) var ordering: [QueryDescriptor]

    package init(className: String, base: QueryBase = .table, predicate: QueryExpression? = nil,
                 ordering: [QueryDescriptor] = []) {
        self.className = className
        self.base = base
        self.predicate = predicate
        self.ordering = []
        for descriptor in ordering { append(descriptor) }
    }

    /// Adds a descriptor after the others. A sort right after a sort merges with it, the new
    /// keys first and the earlier ones breaking ties (Realm's `MergeMode::prepend`: sorting
    /// sorted results keeps the earlier order among equals); an empty sort or distinct is no
    /// descriptor.
    package mutating func append(_ descriptor: QueryDescriptor) {
        switch descriptor {
        case .sort(let keys):
            guard !keys.isEmpty else { return }
            if case .sort(let earlier) = ordering.last {
                ordering[ordering.count - 1] = .sort(keys + earlier)
                return
            }
        case .distinct(let keyPaths):
            guard !keyPaths.isEmpty else { return }
        case .limit:
            break
        }
        ordering.append(descriptor)
    }

    /// Whether the objects come out in ascending key order: a whole table's, with no ordering
    /// (what keys can then be searched by binary search).
    package var isInKeyOrder: Bool { base.isTable && ordering.isEmpty }

    /// The sort keys when the ordering is one sort and nothing else (the objects are then the
    /// predicate's matches, reordered), else nil.
    package var onlySort: [SortKey]? {
        guard ordering.count == 1, case .sort(let keys) = ordering[0] else { return nil }
        return keys
    }

    /// Whether the objects are exactly the base's matches (only sorts, if anything, reorder
    /// them): no distinct drops any and no limit cuts them, so they can be counted without
    /// being collected.
    package var keepsEveryMatch: Bool {
        ordering.allSatisfy { if case .sort = $0 { true } else { false } }
    }

    /// Whether a limit cuts the objects somewhere in the ordering.
    package var isLimited: Bool {
        ordering.contains { if case .limit = $0 { true } else { false } }
    }

    /// The smallest limit when the ordering is nothing but limits (the objects are then the
    /// first matches in base order, so a scan can stop there), else nil.
    package var onlyLimit: Int? {
        var smallest: Int?
        for descriptor in ordering {
            guard case .limit(let count) = descriptor else { return nil }
            smallest = Swift.min(smallest ?? count, count)
        }
        return smallest
    }
}

/// One step of a query's ordering (``ObjectQuery/ordering``), as Realm Query Language writes
/// them after a predicate: `SORT(age DESC, name ASC)`, `DISTINCT(name)`, `LIMIT(10)`, and as
/// `sorted(by:)` and `distinct(by:)` add them.
package enum QueryDescriptor: Sendable, Hashable {
    /// Sorted by the keys, in order of precedence; stable (ties keep their order).
    case sort([SortKey])
    /// The first object (in the order so far) of each combination of values at the key paths.
    case distinct([String])
    /// The first `count` objects (in the order so far).
    case limit(Int)
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
