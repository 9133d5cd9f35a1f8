public import Dispatch
internal import RealmRuntime

extension Results {
    /// The changes of these results: `.initial` when iteration starts, then an `.update` after
    /// each commit that changed them (an object entering or leaving, moving in the sort order,
    /// or modified — including its linked objects' properties, four links deep). A commit that
    /// changes nothing here reports nothing.
    ///
    /// ```swift
    /// for await change in realm.objects(Dog.self).where({ $0.age < 2 }).changes {
    ///     switch change {
    ///     case .initial(let puppies): print("\(puppies.count) puppies")
    ///     case .update(let puppies, let deletions, let insertions, let modifications): …
    ///     case .error(let error): print(error)
    ///     }
    /// }
    /// ```
    public var changes: RealmChanges<RealmCollectionChange<FrozenResults<Element>>> { changes(keyPaths: nil) }

    /// The changes of these results where only the named properties count as modifications
    /// (`["name", "owner.name"]`: a path through a link counts the link and the linked
    /// object's property). Objects entering, leaving or moving are always reported.
    public func changes(keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<FrozenResults<Element>>> {
        guard let realm else { fatalError("Only managed results can be observed") }
        if let table { keyPaths?.forEach { realm.checkObservedKeyPath($0, in: table) } }
        return realm.collectionChanges(self, keyPaths: keyPaths)
    }

    /// ``changes(keyPaths:)-([String]?)`` with key paths of the object's own properties (`\Dog.name`).
    public func changes(keyPaths: [PartialKeyPath<Element>]) -> RealmChanges<RealmCollectionChange<FrozenResults<Element>>> {
        changes(keyPaths: keyPaths.map(QueryKeyPaths.name(ofProperty:)))
    }
}

extension Results {
    /// Calls `block` on `actor` with `.initial` (before this returns) and then each change of
    /// these results, as ``changes(keyPaths:)-([String]?)`` delivers them, until the token is invalidated.
    ///
    /// ```swift
    /// let token = await dogs.observe(on: self) { service, change in service.render(change) }
    /// ```
    ///
    /// Called from the actor that owns the results (`_isolation`), so the results never leave it:
    /// `await results.observe(on: MainActor.shared) { … }` compiles on the main actor.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<FrozenResults<Element>>) -> Void) async -> NotificationToken {
        let changes = changes(keyPaths: keyPaths)
        return await changes.observe(on: actor, firstElement: true, block)
    }

    /// `observe(keyPaths:on:_isolation:_:)` with key paths of the object's own
    /// properties (`\Dog.name`).
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Element>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<FrozenResults<Element>>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map(QueryKeyPaths.name(ofProperty:)), on: actor, block)
    }

    /// Calls `block` on `queue` with `.initial` and then each change of these results, until
    /// the token is invalidated: Realm Swift's callback form. The token is returned at once and
    /// the initial element arrives on the queue like the others; without a queue, on a serial
    /// queue of the token's own (there is no run loop to deliver to). Payloads are frozen, so
    /// the block may run anywhere.
    ///
    /// ```swift
    /// token = dogs.observe(on: .main) { change in
    ///     if case .update(let dogs, _, let insertions, _) = change { print(dogs.count, insertions) }
    /// }
    /// ```
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (RealmCollectionChange<FrozenResults<Element>>) -> Void) -> NotificationToken {
        changes(keyPaths: keyPaths).observe(on: queue, block)
    }

    /// `observe(keyPaths:on:_:)` with key paths of the object's own
    /// properties.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (RealmCollectionChange<FrozenResults<Element>>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map(QueryKeyPaths.name(ofProperty:)), on: queue, block)
    }
}
