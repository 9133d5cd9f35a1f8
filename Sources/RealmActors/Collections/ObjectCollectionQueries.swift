public import Foundation
internal import RealmRuntime

/// Collections of objects that are queried, sorted, aggregated and observed like ``Results``, in
/// their own order: `List`s and `MutableSet`s of objects and ``LinkingObjects``. Every method
/// works on ``results``.
public protocol ObjectCollectionQueries {
    /// The objects' class.
    associatedtype Element: Object
    /// The collection's objects as live `Results`, in the collection's order (a list keeps its
    /// duplicates). Traps on an unmanaged collection.
    var results: Results<Element> { get }
}

extension ObjectCollectionQueries {
    // MARK: Filtering

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

    /// The position of the first object matching a predicate, or nil. A predicate that does not
    /// fit traps, as in ``Results/filter(_:_:)``.
    public func index(matching predicateFormat: String, _ arguments: Any...) -> Int? {
        Realm.trappingInvalidInput { try results.index(validating: predicateFormat, argumentArray: arguments) }
    }

    /// `index(matching:_:)` for a predicate from outside the program.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the problem and its offset.
    public func index(validating predicateFormat: String, _ arguments: Any...) throws -> Int? {
        try results.index(validating: predicateFormat, argumentArray: arguments)
    }

    /// The position of the first object matching a type-safe query, or nil.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        results.index(matching: isIncluded)
    }

    /// The objects at a set of positions, in ascending order of position.
    public func objects(at indexes: IndexSet) -> [Element] {
        let results = self.results
        return indexes.map { results[$0] }
    }

    // MARK: Sorting and distinct

    /// The objects sorted by a property (see ``Results/sorted(byKeyPath:ascending:)``).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The objects sorted by a property of the object (`\Dog.age`).
    public func sorted<T: _Persistable>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element> {
        results.sorted(by: keyPath, ascending: ascending)
    }

    /// The objects sorted by several properties, in order of precedence.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        results.sorted(by: descriptors)
    }

    /// The objects sorted by a key path from outside the program; see
    /// ``Results/sorted(validating:ascending:)``.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the key path and the problem.
    public func sorted(validating keyPath: String, ascending: Bool = true) throws -> Results<Element> {
        try results.sorted(validating: keyPath, ascending: ascending)
    }

    /// One object per distinct combination of the values at `keyPaths` (the first in order).
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        results.distinct(by: keyPaths)
    }

    /// One object per distinct combination of the values of the object's own properties.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        results.distinct(by: keyPaths)
    }

    // MARK: Aggregates

    /// The smallest value of a numeric or date property (nil if there are no values).
    public func min<T: _Persistable>(ofProperty property: String) -> T? { results.min(ofProperty: property) }

    /// The largest value of a numeric or date property (nil if there are no values).
    public func max<T: _Persistable>(ofProperty property: String) -> T? { results.max(ofProperty: property) }

    /// The sum of a numeric property (0 if there are no values).
    public func sum<T: _Persistable>(ofProperty property: String) -> T { results.sum(ofProperty: property) }

    /// The average of a numeric property (nil if there are no values).
    public func average<T: _Persistable>(ofProperty property: String) -> T? { results.average(ofProperty: property) }

    /// The smallest value at a key path (nil if there are no values).
    public func min<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? { results.min(of: keyPath) }

    /// The largest value at a key path (nil if there are no values).
    public func max<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? { results.max(of: keyPath) }

    /// The sum of the values at a key path.
    public func sum<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T { results.sum(of: keyPath) }

    /// The average of the values at a key path (nil if there are no values).
    public func average<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? { results.average(of: keyPath) }

    // MARK: Changes

    /// The changes of the collection (objects joining, leaving or moving, and their properties),
    /// like ``Results/changes``. A list whose owner is deleted reports every object deleted.
    public var changes: RealmChanges<RealmCollectionChange<FrozenResults<Element>>> { results.changes }

    /// ``changes`` where only the named properties count as modifications.
    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<FrozenResults<Element>>> {
        results.changes(keyPaths: keyPaths)
    }

    /// Calls `block` on `actor` with `.initial` and then each change of the collection, until the
    /// token is invalidated (see `Results.observe(keyPaths:on:_isolation:_:)`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<FrozenResults<Element>>) -> Void) async -> NotificationToken {
        let results = self.results
        return await results.observe(keyPaths: keyPaths, on: actor, block)
    }

    /// Calls `block` on `queue` with `.initial` and then each change of the collection, until the
    /// token is invalidated (see `Results.observe(keyPaths:on:_:)`).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (RealmCollectionChange<FrozenResults<Element>>) -> Void) -> NotificationToken {
        results.observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension List: ObjectCollectionQueries where Element: Object {
    /// The list's objects as `Results`, in list order (duplicates kept): the base of queries and
    /// sorts on a list. Live like the list. Traps on an unmanaged list.
    public var results: Results<Element> {
        guard let location = managedLocation else { fatalError("Only a managed List can be queried") }
        return Results(realm: location.realm, base: .collection(ownerClass: location.ownerTable.name, ownerKey: location.ownerKey,
                                                                property: location.property.name))
    }
}

extension MutableSet: ObjectCollectionQueries where Element: Object {
    /// The set's objects as `Results`, in the set's order: the base of queries and sorts on a
    /// set. Live like the set. Traps on an unmanaged set.
    public var results: Results<Element> {
        guard let location = managedLocation else { fatalError("Only a managed MutableSet can be queried") }
        return Results(realm: location.realm, base: .collection(ownerClass: location.ownerTable.name, ownerKey: location.ownerKey,
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
