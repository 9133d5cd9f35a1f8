public import Dispatch
internal import RealmRuntime

/// The block of ``Realm/observe(on:_:)-(DispatchQueue?,_)``: Realm Swift's `NotificationBlock`, given a frozen realm
/// of the new version in place of the live handle.
public typealias NotificationBlock = @Sendable (_ notification: Realm.Notification, _ realm: FrozenRealm) -> Void

extension Realm {
    /// A collection stream of `results` from the notifier's newest version.
    func collectionChanges<T: Object>(_ results: Results<T>, keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<FrozenResults<T>>> {
        precondition(!isFrozen, "Frozen results do not change; observe the live results instead")
        let query = ObservedQuery(query: results.query)
        let filter = ChangeFilter(keyPaths: keyPaths) ?? .everything(depth: ChangeFilter.defaultLinkDepth)
        let file = self.file, configuration = self.configuration, observed = results.query
        return RealmChanges(start: {
            guard let notifier = try? Notifier.shared(for: file) else { return nil }
            let id = await notifier.register { snapshot in CollectionChangeTracker(query: query, filter: filter, snapshot: snapshot) }
            return Registration(notifier: notifier, id: id)
        }, element: { RealmCollectionChange($0, query: observed, configuration: configuration) })
    }

    /// Registers `tracker` (made at this handle's current version) when iteration starts, and
    /// delivers its elements in their public form (`element`). The notifier is made now, so it
    /// keeps the change logs of the commits in between.
    func changes<Element: Sendable>(startingFrom makeTracker: @escaping @Sendable (FrozenVersion) -> any ChangeTracker,
                                    element: @escaping @Sendable (ChangeElement, Realm.Configuration) -> Element?) -> RealmChanges<Element> {
        precondition(!isFrozen, "A frozen realm does not change; observe a live one")
        let snapshot = currentSnapshot().version
        let notifier = try? Notifier.shared(for: file)
        let configuration = self.configuration
        return RealmChanges(start: {
            guard let notifier else { return nil }
            let id = await notifier.register(baseline: snapshot) { makeTracker(snapshot) }
            return Registration(notifier: notifier, id: id)
        }, element: { element($0, configuration) })
    }

    /// One frozen realm per new version, from the version this handle reads now. Consecutive
    /// versions may arrive as one (the newest). The stream ends if the file can no longer be read.
    ///
    /// ```swift
    /// for await version in realm.changes {
    ///     print("now \(version.objects(Dog.self).count) dogs")
    /// }
    /// ```
    public var changes: RealmChanges<FrozenRealm> {
        changes(startingFrom: { RealmChangeTracker(snapshot: $0) }) { element, configuration in
            guard case .realm(let version) = element else { return nil }
            return FrozenRealm(snapshot: FrozenSnapshot(configuration: configuration, version: version))
        }
    }

    /// The number of change observers (streams being iterated and notification blocks) of this
    /// realm's file in this process: a diagnostic, for example to check that observers are
    /// released.
    public var numberOfChangeObservers: Int { file.changeFeed.numberOfObservers }
}

extension Realm {
    /// Traps with a precise message if `keyPath` does not name properties of `table`
    /// (observing a missing property is a programmer error in Realm).
    func checkObservedKeyPath(_ keyPath: String, in table: Table) {
        var current = table
        let components = keyPath.split(separator: ".").map(String.init)
        for (index, name) in components.enumerated() {
            guard let column = current.columns[name], let property = current.property(column) else {
                fatalError("Property '\(name)' of key path '\(keyPath)' not found in object of type '\(current.name)'")
            }
            guard index < components.count - 1 else { return }
            guard property.kind == .object, let target = property.objectClassName.flatMap({ catalog.tables[$0] }) else {
                fatalError("Key path '\(keyPath)' continues past '\(name)', which is not a link")
            }
            current = target
        }
    }
}

extension Realm {
    /// Calls `block` on `actor` with a frozen realm for each new version from now on, until the
    /// token is invalidated.
    public func observe<A: Actor>(on actor: A, _ block: @escaping @Sendable (isolated A, FrozenRealm) -> Void) async -> NotificationToken {
        return await changes.observe(on: actor, firstElement: false, block)
    }

    /// What a realm notification block is told: Realm Swift's `Realm.Notification`.
    public enum Notification: String, Sendable {
        /// The realm has a new version (a commit of this or another handle).
        case didChange = "RLMRealmDidChangeNotification"
        /// Never delivered: a handle advances by itself; kept so Realm Swift's `switch`
        /// statements compile.
        case refreshRequired = "RLMRealmRefreshRequiredNotification"
    }

    /// Calls `block` on `queue` with `.didChange` and a frozen realm at each new version from now
    /// on, until the token is invalidated: Realm Swift's `observe(_:)`, whose block gets the live
    /// realm on its thread; here the realm is the ``FrozenRealm`` of the new version, so the block
    /// may run anywhere and reads what changed (`realm.objects(Dog.self)`). Without a queue,
    /// blocks run on a serial queue of the token's own.
    ///
    /// ```swift
    /// token = realm.observe { notification, realm in
    ///     print(notification, realm.objects(Dog.self).count)
    /// }
    /// ```
    public func observe(on queue: DispatchQueue? = nil, _ block: @escaping NotificationBlock) -> NotificationToken {
        changes.observe(on: queue) { block(.didChange, $0) }
    }

    /// Performs a write transaction whose changes the observers of `tokens` are not notified of
    /// (their next notification starts from the state after it). A token sees every commit it
    /// was not excluded from; when several commits reach the notifier together, it is skipped
    /// only if it was excluded from all of them.
    @discardableResult
    public func write<Result>(withoutNotifying tokens: [NotificationToken], _ block: () throws -> Result) throws -> Result {
        try write {
            silencedObservers = Set(tokens.map(\.registrationID))
            return try block()
        }
    }

    /// Commits the write transaction without notifying the observers of `tokens`; see
    /// ``write(withoutNotifying:_:)``.
    public func commitWrite(withoutNotifying tokens: [NotificationToken]) throws {
        if isInWriteTransaction { silencedObservers = Set(tokens.map(\.registrationID)) }
        try commitWrite()
    }
}
