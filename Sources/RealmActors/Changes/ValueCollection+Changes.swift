public import Dispatch
internal import RealmRuntime

// Change streams and observers of collections of values — `List<String>`, `MutableSet<Int>`,
// `Map<String, Double>`: the payload is the collection's values as a `Sendable` array or
// dictionary at the version reported (values need no pinned version). Lists and sets of
// objects are observed as results (`ObjectCollectionQueries`).

extension Realm {
    /// The stream of one collection property of values, from this handle's current version: its
    /// stored elements at each version that changed them, turned into the public change by
    /// `change` (given a frozen handle of that version, the property, and the previous elements,
    /// nil for the first) or `failure`.
    func valueCollectionChanges<Change: Sendable>(
        of location: CollectionLocation,
        change: @escaping @Sendable (_ realm: Realm, _ property: PropertyInfo, _ previous: [ColumnValue]?, _ current: [ColumnValue]) -> Change,
        failure: @escaping @Sendable (Realm.Error) -> Change
    ) -> RealmChanges<Change> {
        let className = location.ownerTable.name, key = location.ownerKey, property = location.property.name
        return changes(startingFrom: { snapshot in
            ValueCollectionChangeTracker(className: className, key: key, property: property, snapshot: snapshot)
        }, element: { element, configuration in
            switch element {
            case .values(let version, let table, _, let column, let previous, let current):
                guard let property = table.property(column) else { return nil }
                let realm = FrozenSnapshot(configuration: configuration, version: version).handle()
                return change(realm, property, previous, current)
            case .failure(let error):
                return failure(Realm.Error(error, configuration: configuration))
            case .collection, .object, .objectDeleted, .realm:
                return nil
            }
        })
    }
}

extension CollectionLocation {
    /// The changes of a list or set of values stored here, as arrays of `Element`; `diff`
    /// compares two states of the stored elements.
    func elementChanges<Element: _Persistable & Sendable>(
        diff: @escaping @Sendable (_ old: [ColumnValue], _ new: [ColumnValue]) -> CollectionDiff
    ) -> RealmChanges<RealmCollectionChange<[Element]>> {
        precondition(!realm.isFrozen, "A frozen collection does not change; observe a live one")
        return realm.valueCollectionChanges(of: self, change: { realm, property, previous, current in
            let values = current.map { realm.element(Element.self, $0, property: property.element) }
            guard let previous else { return .initial(values) }
            let change = diff(previous, current)
            return .update(values, deletions: change.deletions, insertions: change.insertions, modifications: change.modifications)
        }, failure: { .error($0) })
    }
}

// MARK: List

extension List where Element: Sendable {
    /// The changes of this list of values: `.initial` with its values when iteration starts,
    /// then an `.update` after each commit that changed it, with the positions removed (in the
    /// previous values), added and changed (in the new ones). If the owning object is deleted,
    /// a last update removes every value and the stream ends.
    ///
    /// ```swift
    /// for await change in person.nicknames.changes {
    ///     if case .update(let names, _, let insertions, _) = change { print(names, insertions) }
    /// }
    /// ```
    public var changes: RealmChanges<RealmCollectionChange<[Element]>> {
        guard let location = managedLocation else { fatalError("Only managed lists can be observed") }
        return location.elementChanges { CollectionDiff(oldList: $0, newList: $1) }
    }

    /// Calls `block` on `actor` with `.initial` (before this returns) and then each change of the
    /// list, as ``changes`` delivers them, until the token is invalidated. A list of values has
    /// no properties to filter, so `keyPaths` is accepted (as in Realm Swift) and ignored.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<[Element]>) -> Void) async -> NotificationToken {
        return await changes.observe(on: actor, firstElement: true, block)
    }

    /// Calls `block` on `queue` with `.initial` and then each change of the list, until the
    /// token is invalidated: Realm Swift's callback form (see `Results.observe(keyPaths:on:_:)`).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (RealmCollectionChange<[Element]>) -> Void) -> NotificationToken {
        changes.observe(on: queue, block)
    }
}

// MARK: MutableSet

extension MutableSet where Element: Sendable {
    /// The changes of this set of values: `.initial` with its values (in the set's order) when
    /// iteration starts, then an `.update` after each commit that changed it, with the positions
    /// of the values that left (in the previous values) and arrived (in the new ones). If the
    /// owning object is deleted, a last update removes every value and the stream ends.
    public var changes: RealmChanges<RealmCollectionChange<[Element]>> {
        guard let location = managedLocation else { fatalError("Only managed sets can be observed") }
        return location.elementChanges { CollectionDiff(oldSet: $0, newSet: $1) }
    }

    /// Calls `block` on `actor` with `.initial` (before this returns) and then each change of the
    /// set, until the token is invalidated. `keyPaths` is accepted and ignored, as for lists.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<[Element]>) -> Void) async -> NotificationToken {
        return await changes.observe(on: actor, firstElement: true, block)
    }

    /// Calls `block` on `queue` with `.initial` and then each change of the set, until the token
    /// is invalidated.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (RealmCollectionChange<[Element]>) -> Void) -> NotificationToken {
        changes.observe(on: queue, block)
    }
}

// MARK: Map

extension Map where Key: Sendable, Value: Sendable {
    /// The changes of this map: `.initial` with its entries when iteration starts, then an
    /// `.update` after each commit that changed it, with the keys removed, added and whose value
    /// changed. If the owning object is deleted, a last update removes every key and the stream
    /// ends.
    public var changes: RealmChanges<RealmMapChange<[Key: Value], Key>> {
        guard let location = managedLocation else { fatalError("Only managed maps can be observed") }
        precondition(!location.realm.isFrozen, "A frozen collection does not change; observe a live one")
        return location.realm.valueCollectionChanges(of: location, change: { realm, property, previous, current in
            func key(_ stored: ColumnValue) -> Key {
                guard case .bytes(let bytes) = stored else { return Key(_rlmKey: "") }
                return Key(_rlmKey: String(decoding: bytes, as: UTF8.self))
            }
            var entries: [Key: Value] = [:]
            for index in stride(from: 0, to: current.count - 1, by: 2) {
                entries[key(current[index])] = realm.element(Value.self, current[index + 1], property: property.element)
            }
            guard let previous else { return .initial(entries) }
            let diff = CollectionDiff(oldMap: previous, newMap: current)
            return .update(entries, deletions: diff.deletions.map { key(previous[2 * $0]) },
                           insertions: diff.insertions.map { key(current[2 * $0]) },
                           modifications: diff.modifications.map { key(current[2 * $0]) })
        }, failure: { .error($0) })
    }

    /// Calls `block` on `actor` with `.initial` (before this returns) and then each change of the
    /// map, as ``changes`` delivers them, until the token is invalidated. `keyPaths` is accepted
    /// and ignored, as for lists of values.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmMapChange<[Key: Value], Key>) -> Void) async -> NotificationToken {
        return await changes.observe(on: actor, firstElement: true, block)
    }

    /// Calls `block` on `queue` with `.initial` and then each change of the map, until the token
    /// is invalidated: Realm Swift's callback form.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (RealmMapChange<[Key: Value], Key>) -> Void) -> NotificationToken {
        changes.observe(on: queue, block)
    }
}
