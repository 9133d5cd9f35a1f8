internal import RealmRuntime

extension FreezableObject {
    /// The changes of this object from its handle's current version on: `.change` with the
    /// changed properties (old and new values) after each commit that changed it or an object
    /// it links to (four links deep), `.deleted` (then the stream ends). No initial element.
    ///
    /// ```swift
    /// for await change in dog.changes {
    ///     if case .change(let dog, let properties) = change { print(dog.name, properties.map(\.name)) }
    /// }
    /// ```
    public var changes: RealmChanges<ObjectChange<Self>> { changes(keyPaths: nil) }

    /// ``changes`` where only the named properties count (`"owner.name"` follows a link).
    public func changes(keyPaths: [String]?) -> RealmChanges<ObjectChange<Self>> {
        observedChanges(keyPaths: keyPaths)
    }

    /// ``changes(keyPaths:)-([String]?)`` with key paths of the object's own properties (`\Dog.name`).
    public func changes(keyPaths: [PartialKeyPath<Self>]) -> RealmChanges<ObjectChange<Self>> {
        changes(keyPaths: keyPaths.map(QueryKeyPaths.name(ofProperty:)))
    }
}

// Observing an object (`observe(keyPaths:on:_:)` and the rest of the family are
// `_ObjectObservable`'s, shared with projections): the object's own changes, every property
// counting (through links, four levels deep) unless key paths name some.

extension FreezableObject {
    /// The object's changes where `keyPaths` count (checked against the schema; a trap names an
    /// unknown one), each described by its changed stored properties.
    public func _observation(keyPaths: [String]?) -> _ObjectObservation {
        guard let state = realmState else { fatalError("Only managed objects can be observed") }
        keyPaths?.forEach { state.realm.checkObservedKeyPath($0, in: state.table) }
        let filter = ChangeFilter(keyPaths: keyPaths) ?? .everything(depth: ChangeFilter.defaultLinkDepth)
        return _ObjectObservation(object: self, filter: filter, describe: nil)
    }

    /// The name of the property `keyPath` reads (`\Dog.name` is `"name"`).
    public static func _observedName<Root>(of keyPath: PartialKeyPath<Root>) -> String {
        QueryKeyPaths.name(ofProperty: keyPath)
    }
}

extension ObjectBase {
    /// The notifier's changes of this managed object where `filter` says what counts, each
    /// element in the public form `element` makes of it. Traps if the object is unmanaged.
    func objectChanges<Element: Sendable>(filter: ChangeFilter,
                                          element: @escaping @Sendable (ChangeElement, Realm.Configuration) -> Element?) -> RealmChanges<Element> {
        guard let state = realmState else { fatalError("Only managed objects can be observed") }
        let className = state.table.name, key = state.key
        return state.realm.changes(startingFrom: { snapshot in
            ObjectChangeTracker(className: className, key: key, filter: filter, snapshot: snapshot)
        }, element: element)
    }
}
