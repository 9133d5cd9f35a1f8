internal import RealmRuntime

/// Collections of objects that are queried, sorted and observed like ``Results``, in their own
/// order: `List`s of objects and ``LinkingObjects``. Every method works on ``results``.
public protocol ObjectCollectionQueries {
    /// The objects' class.
    associatedtype Element: Object
    /// The collection's objects as live `Results`, in the collection's order (a list keeps its
    /// duplicates). Traps on an unmanaged collection.
    var results: Results<Element> { get }
}

extension ObjectCollectionQueries {
    /// The objects matching a Realm Query Language predicate, in the collection's order. A
    /// predicate that does not fit traps, as in ``Results/filter(_:_:)``.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> Results<Element> {
        results.filter(predicateFormat, argumentArray: arguments)
    }

    /// ``filter(_:_:)`` for a predicate from outside the program; see ``Results/filter(validating:_:)``.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the problem and its offset.
    public func filter(validating predicateFormat: String, _ arguments: Any...) throws -> Results<Element> {
        try results.filter(validating: predicateFormat, argumentArray: arguments)
    }

    /// The objects matching a type-safe query, in the collection's order.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        results.where(isIncluded)
    }

    /// The objects sorted by a property.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The changes of the collection (objects joining, leaving or moving, and their properties),
    /// like ``Results/changes``. A list whose owner is deleted reports every object deleted.
    public var changes: RealmChanges<RealmCollectionChange<FrozenResults<Element>>> { results.changes }

    /// ``changes`` where only the named properties count as modifications.
    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<FrozenResults<Element>>> {
        results.changes(keyPaths: keyPaths)
    }
}

extension List: ObjectCollectionQueries where Element: Object {
    /// The list's objects as `Results`, in list order (duplicates kept): the base of queries and
    /// sorts on a list. Live like the list. Traps on an unmanaged list.
    public var results: Results<Element> {
        guard let location = managedLocation else { fatalError("Only a managed List can be queried") }
        return Results(realm: location.realm, base: .list(ownerClass: location.owner.table.name, ownerKey: location.owner.key,
                                                           property: location.property.name))
    }
}

extension LinkingObjects: ObjectCollectionQueries where Element: Object {
    /// The linking objects as `Results`: the base of queries and sorts. Live.
    public var results: Results<Element> {
        guard let realm, let base = resultsBase else { fatalError("Only the linking objects of a managed object can be queried") }
        return Results(realm: realm, base: base)
    }
}
