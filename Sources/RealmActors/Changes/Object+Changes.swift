public import Dispatch
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
        guard let state = realmState else { fatalError("Only managed objects can be observed") }
        keyPaths?.forEach { state.realm.checkObservedKeyPath($0, in: state.table) }
        let filter = ChangeFilter(keyPaths: keyPaths) ?? .everything(depth: ChangeFilter.defaultLinkDepth)
        return objectChanges(filter: filter, element: ObjectChange.init)
    }

    /// ``changes(keyPaths:)-([String]?)`` with key paths of the object's own properties (`\Dog.name`).
    public func changes(keyPaths: [PartialKeyPath<Self>]) -> RealmChanges<ObjectChange<Self>> {
        changes(keyPaths: keyPaths.map(QueryKeyPaths.name(ofProperty:)))
    }
}

extension FreezableObject {
    /// Calls `block` on `actor` with each change of this object from now on, as
    /// ``changes(keyPaths:)-([String]?)`` delivers them, until the token is invalidated.
    /// Called from the actor that owns the object (`_isolation`), so the object never leaves it.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        let changes = changes(keyPaths: keyPaths)
        return await changes.observe(on: actor, firstElement: false, block)
    }

    /// `observe(keyPaths:on:_isolation:_:)` with key paths of the object's own properties.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map(QueryKeyPaths.name(ofProperty:)), on: actor, block)
    }

    /// Calls `block` on `queue` with each change of this object from now on, until the token
    /// is invalidated: Realm Swift's callback form (see `Results.observe(keyPaths:on:_:)`
    /// for where elements go without a queue). Payloads are frozen.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void) -> NotificationToken {
        changes(keyPaths: keyPaths).observe(on: queue, block)
    }

    /// `observe(keyPaths:on:_:)` with key paths of the object's own properties.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map(QueryKeyPaths.name(ofProperty:)), on: queue, block)
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
