public import Dispatch

// The changes of projected results are those of their root objects' results, each collection
// presented as frozen projections.

extension ProjectedResults {
    /// The changes of these results, as ``Results/changes`` reports those of ``objects``, with
    /// each collection a ``FrozenProjectedResults``: `.initial` when iteration starts, then an
    /// `.update` after each commit that changed them.
    ///
    /// ```swift
    /// for await change in realm.objects(PersonProjection.self).changes {
    ///     if case .update(let people, _, let insertions, _) = change { print(people.count, insertions) }
    /// }
    /// ```
    public var changes: RealmChanges<RealmCollectionChange<FrozenProjectedResults<Element>>> { changes(keyPaths: nil) }

    /// ``changes`` where only the named properties of the root class count as modifications
    /// (`["lastName", "address.city"]`, as in filters and sort keys; see
    /// ``Results/changes(keyPaths:)-([String]?)``).
    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<FrozenProjectedResults<Element>>> {
        objects.changes(keyPaths: keyPaths).map { change in change.map(FrozenProjectedResults.init) }
    }

    /// ``changes(keyPaths:)-([String]?)`` with key paths of the projection's properties
    /// (`\PersonProjection.lastNameCaps` counts the root property it reads, `lastName`).
    public func changes(keyPaths: [PartialKeyPath<Element>]) -> RealmChanges<RealmCollectionChange<FrozenProjectedResults<Element>>> {
        changes(keyPaths: keyPaths.map(Element._observedName(of:)))
    }

    /// Calls `block` on `actor` with `.initial` (before this returns) and then each change of
    /// these results, as ``changes(keyPaths:)-([String]?)`` delivers them, until the token is
    /// invalidated. Called from the actor that owns the results (`_isolation`).
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<FrozenProjectedResults<Element>>) -> Void) async -> NotificationToken {
        let changes = changes(keyPaths: keyPaths)
        return await changes.observe(on: actor, firstElement: true, block)
    }

    /// `observe(keyPaths:on:_isolation:_:)` with key paths of the projection's properties.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<FrozenProjectedResults<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map(Element._observedName(of:)), on: actor, block)
    }

    /// Calls `block` on `queue` with `.initial` and then each change of these results, until the
    /// token is invalidated: Realm Swift's callback form (see `Results.observe(keyPaths:on:_:)`
    /// for where elements go without a queue). Payloads are frozen projections.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (RealmCollectionChange<FrozenProjectedResults<Element>>) -> Void) -> NotificationToken {
        changes(keyPaths: keyPaths).observe(on: queue, block)
    }

    /// `observe(keyPaths:on:_:)` with key paths of the projection's properties.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (RealmCollectionChange<FrozenProjectedResults<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map(Element._observedName(of:)), on: queue, block)
    }
}
