// Thawing: a frozen value back to a live one — Realm Swift's `thaw()`. A live object or results
// belong to one handle, so thawing needs a handle: the one given (`thaw(in:)`), or one opened
// on the caller's isolation with the frozen value's configuration (`thaw()`).

extension Frozen {
    /// The live object in `realm` at its current version, or nil if it no longer exists there
    /// (see ``Realm/thaw(_:)->T?``).
    public func thaw(in realm: Realm) -> T? { realm.thaw(self) }

    /// The live object in a handle opened on the caller's isolation (an actor, or the main
    /// actor) with the configuration it was frozen from, or nil if it no longer exists:
    /// Realm Swift's `thaw()`.
    ///
    /// ```swift
    /// if let dog = try await frozenDog.thaw() {
    ///     try await dog.realm!.asyncWrite { dog.age += 1 }
    /// }
    /// ```
    ///
    /// - Throws: a ``Realm/Error`` if the realm cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) async throws -> T? {
        let realm = try await Realm.open(configuration: snapshot.configuration, isolation: isolation)
        return realm.thaw(self)
    }
}

extension FrozenResults {
    /// The same query, live, in `realm` (see `Realm.thaw(_:)`).
    public func thaw(in realm: Realm) -> Results<T> { realm.thaw(self) }

    /// The same query, live, in a handle opened on the caller's isolation with the configuration
    /// the results were frozen from: Realm Swift's `thaw()`.
    ///
    /// - Throws: a ``Realm/Error`` if the realm cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) async throws -> Results<T> {
        let realm = try await Realm.open(configuration: snapshot.configuration, isolation: isolation)
        return realm.thaw(self)
    }
}

extension FrozenRealm {
    /// A live handle on the realm this was frozen from, at its newest version, opened on the
    /// caller's isolation: Realm Swift's `thaw()` on a frozen realm (async here, as opening is).
    ///
    /// - Throws: a ``Realm/Error`` if the realm cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) async throws -> Realm {
        try await Realm.open(configuration: snapshot.configuration, isolation: isolation)
    }
}

extension Realm {
    /// Frozen results as live `Results` of this handle: the same query (class, base collection,
    /// filters, distinct, sort) evaluated at the handle's current version, so objects added since
    /// the freeze appear and deleted ones are gone.
    public func thaw<T: Object>(_ results: FrozenResults<T>) -> Results<T> {
        Results(realm: self, query: results.query)
    }
}
