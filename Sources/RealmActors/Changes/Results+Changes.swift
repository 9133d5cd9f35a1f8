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
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _ block: @escaping @Sendable (isolated A, RealmCollectionChange<FrozenResults<Element>>) -> Void) async -> NotificationToken {
        guard let token = await changes(keyPaths: keyPaths).observe(on: actor, firstElement: true, block) else {
            fatalError("The realm file can no longer be read")
        }
        return token
    }
}
