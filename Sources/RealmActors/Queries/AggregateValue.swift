internal import RealmRuntime

/// The result of an aggregate (`@min`, `@max`, `@sum`, `@avg`) as the Swift type asked for,
/// shared by `Results`' aggregates over objects and the aggregates of collections of values.
enum AggregateValue {
    /// `value` as a `T`; nil for no value (an empty collection, or only nils). An integer
    /// result asked for as a floating-point type converts, and a fractional one asked for as an
    /// integer truncates, as Realm Swift does.
    static func converted<T: _Persistable>(_ value: ColumnValue, _ aggregate: QueryAggregate) -> T? {
        if aggregate == .average, case .double = value { return T._rlmFromValue(_RealmValue(value)) }
        guard value != .null else { return nil }
        if let converted = T._rlmFromValue(_RealmValue(value)) { return converted }
        if case .double(let double) = value { return T._rlmFromValue(_RealmValue(.int(Int64(double)))) }
        if case .int(let int) = value { return T._rlmFromValue(_RealmValue(.double(Double(int)))) }
        return nil
    }

    /// An aggregate of persistable values (nil elements are skipped, as Realm skips them).
    static func of<Values: Sequence, T: _Persistable>(_ aggregate: QueryAggregate, _ values: Values) -> T?
        where Values.Element: _Persistable {
        let stored = values.compactMap { element -> ColumnValue? in
            if case .stored(let value) = element._rlmValue.storage { return value }
            return nil
        }
        let value = QueryComparisons.aggregate(aggregate, of: stored, kind: Values.Element._rlmType.kind, isCollection: true)
        return converted(value, aggregate)
    }
}

extension List where Element: _Persistable & AdditiveArithmetic {
    /// The sum of the values (0 for an empty list).
    public func sum() -> Element { AggregateValue.of(.sum, self) ?? .zero }

    /// The average of the values (nil for an empty list), as the type asked for
    /// (`let mean: Double? = scores.average()`).
    public func average<T: _Persistable>() -> T? { AggregateValue.of(.average, self) }
}

extension MutableSet where Element: _Persistable & AdditiveArithmetic {
    /// The sum of the values (0 for an empty set).
    public func sum() -> Element { AggregateValue.of(.sum, self) ?? .zero }

    /// The average of the values (nil for an empty set), as the type asked for.
    public func average<T: _Persistable>() -> T? { AggregateValue.of(.average, self) }
}

extension List where Element: _Persistable & Comparable {
    /// The values sorted (a copy at the realm's current version). Realm Swift returns live
    /// `Results` of values; here `Results` hold objects, so this is an array.
    public func sorted(ascending: Bool = true) -> [Element] {
        ascending ? sorted(by: <) : sorted(by: >)
    }

    /// The distinct values in list order (a copy at the realm's current version; see
    /// ``sorted(ascending:)`` for why an array).
    public func distinct() -> [Element] where Element: Hashable {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}

extension MutableSet where Element: _Persistable & Comparable {
    /// The values sorted (a copy at the realm's current version; see `List.sorted(ascending:)`
    /// for why an array).
    public func sorted(ascending: Bool = true) -> [Element] {
        ascending ? sorted(by: <) : sorted(by: >)
    }

    /// The values, each once, in the set's order (a set's values are already distinct).
    public func distinct() -> [Element] { Array(self) }
}
