internal import RealmRuntime

// Realm Swift's `Map` beyond a dictionary: merging, its entries as a sequence, and — for a map
// of objects — queries, sorts and aggregates over its values; for a map of numbers or other
// comparable values, the values' aggregates and order.

extension Map {
    /// The entries as `(key, value)` pairs, in key order (Realm Swift's `KeyValueSequence`).
    public typealias KeyValueSequence = [(key: Key, value: Value)]

    /// The entries as `(key, value)` pairs, in key order.
    public func asKeyValueSequence() -> KeyValueSequence { Array(self) }

    /// Adds the entries of `sequence`; for a key already present, `combine` is given the current
    /// and the new value and its result is stored. In a write transaction for a managed map.
    public func merge<S: Sequence>(_ sequence: S, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows
        where S.Element == (key: Key, value: Value) {
        for (key, value) in sequence {
            updateValue(try self[key].map { try combine($0, value) } ?? value, forKey: key)
        }
    }

    /// Adds the entries of another map; see ``merge(_:uniquingKeysWith:)-(S,_)``.
    public func merge(_ other: Map<Key, Value>, uniquingKeysWith combine: (Value, Value) throws -> Value) rethrows {
        try merge(other.asKeyValueSequence(), uniquingKeysWith: combine)
    }
}

extension Map where Value: _Persistable & Comparable {
    /// The values sorted (a copy at the realm's current version; see `List.sorted(ascending:)`
    /// for why an array).
    public func sorted(ascending: Bool = true) -> [Value] {
        ascending ? values.sorted(by: <) : values.sorted(by: >)
    }

    /// The smallest value, or nil for an empty map.
    public func min() -> Value? { values.min() }

    /// The largest value, or nil for an empty map.
    public func max() -> Value? { values.max() }
}

extension Map where Value: _Persistable & AdditiveArithmetic {
    /// The sum of the values (0 for an empty map).
    public func sum() -> Value { AggregateValue.of(.sum, values) ?? .zero }

    /// The average of the values (nil for an empty map), as the type asked for.
    public func average<T: _Persistable>() -> T? { AggregateValue.of(.average, values) }
}

extension Map where Key: Sendable, Value: Sendable {
    /// The entries at the realm's current version, as a `Sendable` dictionary (a copy: values
    /// need no pinned version).
    public func freeze() -> [Key: Value] {
        Dictionary(uniqueKeysWithValues: asKeyValueSequence().map { ($0.key, $0.value) })
    }
}

extension Map {
    /// The linked objects of a map of objects (`Map<String, Dog?>`) as live `Results`, in key
    /// order, nil values left out: the base of its queries. Traps on an unmanaged map.
    func objects<O: Object>() -> Results<O> where Value == O? {
        guard let location = managedLocation else { fatalError("Only a managed Map can be queried") }
        return Results(realm: location.realm, base: .collection(ownerClass: location.ownerTable.name, ownerKey: location.ownerKey,
                                                                property: location.property.name))
    }

    /// The map's objects matching a type-safe query, in key order.
    public func `where`<O: Object>(_ isIncluded: (Query<O>) -> Query<Bool>) -> Results<O> where Value == O? {
        objects().where(isIncluded)
    }

    /// The map's objects matching a Realm Query Language predicate, in key order. A predicate
    /// that does not fit traps, as in `Results.filter(_:_:)`.
    public func filter<O: Object>(_ predicateFormat: String, _ arguments: Any...) -> Results<O> where Value == O? {
        objects().filter(predicateFormat, argumentArray: arguments)
    }

    /// `filter(_:_:)` for a predicate from outside the program.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the problem and its offset.
    public func filter<O: Object>(validating predicateFormat: String, _ arguments: Any...) throws -> Results<O> where Value == O? {
        try objects().filter(validating: predicateFormat, argumentArray: arguments)
    }

    /// The map's objects sorted by a property.
    public func sorted<O: Object>(byKeyPath keyPath: String, ascending: Bool = true) -> Results<O> where Value == O? {
        objects().sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// The map's objects sorted by several properties, in order of precedence.
    public func sorted<O: Object, S: Sequence>(by descriptors: S) -> Results<O> where Value == O?, S.Element == SortDescriptor {
        objects().sorted(by: descriptors)
    }

    /// The smallest value of a property of the map's objects.
    public func min<O: Object, T: _Persistable>(ofProperty property: String) -> T? where Value == O? {
        (objects() as Results<O>).min(ofProperty: property)
    }

    /// The largest value of a property of the map's objects.
    public func max<O: Object, T: _Persistable>(ofProperty property: String) -> T? where Value == O? {
        (objects() as Results<O>).max(ofProperty: property)
    }

    /// The sum of a property of the map's objects.
    public func sum<O: Object, T: _Persistable>(ofProperty property: String) -> T where Value == O? {
        (objects() as Results<O>).sum(ofProperty: property)
    }

    /// The average of a property of the map's objects.
    public func average<O: Object, T: _Persistable>(ofProperty property: String) -> T? where Value == O? {
        (objects() as Results<O>).average(ofProperty: property)
    }
}
