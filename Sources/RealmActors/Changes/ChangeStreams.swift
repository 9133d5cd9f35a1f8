internal import RealmRuntime

/// A change to a collection (`Results`, `List`, `LinkingObjects`), delivered by its
/// ``Results/changes`` stream.
///
/// The first element is `.initial` with the collection as it is when observation starts; every
/// later one is an `.update` from the previously delivered state to a newer one: `deletions`
/// are indices in the previous state, `insertions` and `modifications` indices in the new one
/// (unlike Realm Swift, whose `modifications` are old indices). Applying the deletions to the
/// previous collection, then the insertions, gives the new one's objects. An object that moved
/// (its position in a sorted collection changed) is deleted and inserted.
public enum RealmCollectionChange<Collection: Sendable>: Sendable {
    /// The collection when observation started.
    case initial(Collection)
    /// The collection after one or more commits, and how it changed since the previous element.
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The realm could no longer be read; the stream ends after this.
    case error(Realm.Error)
}

/// One changed property of an observed object.
public struct PropertyChange: Sendable {
    /// The property's name.
    public let name: String
    /// The value before the change (nil for links, collections and `AnyRealmValue`, and for a
    /// nil value).
    public let oldValue: (any Sendable)?
    /// The value after the change (nil as for `oldValue`).
    public let newValue: (any Sendable)?
}

/// A change to an observed object, delivered by its ``FreezableObject/changes`` stream.
public enum ObjectChange<T: Object>: Sendable {
    /// Properties of the object changed (the snapshot is the object after them).
    case change(Frozen<T>, [PropertyChange])
    /// The object was deleted; the stream ends after this.
    case deleted
    /// The realm could no longer be read; the stream ends after this.
    case error(Realm.Error)
}

/// A stream of changes computed by the file's notifier actor: an `AsyncSequence` whose
/// elements are `Sendable` snapshots, so it can be iterated on any actor or task.
///
/// Observation starts when iteration starts (for collections, when `.initial` is delivered:
/// every write committed after receiving it is reported) and ends when the loop ends, breaks or
/// its task is cancelled. A consumer slower than the commits gets one element covering all of
/// them: nothing is buffered per commit, only the newest state is kept.
public struct RealmChanges<Element: Sendable>: AsyncSequence, Sendable {
    /// Registers the observer with the notifier when iteration starts.
    let start: @Sendable () async -> Registration?

    /// An iterator; iterate with `for await`.
    public func makeAsyncIterator() -> Iterator { Iterator(start: start) }

    /// The iterator of ``RealmChanges``.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let start: @Sendable () async -> Registration?
        var registration: Registration?
        var ended = false

        /// Registers with the notifier (if not yet) and returns the registration's id; nil if
        /// the file cannot be read.
        mutating func register() async -> UInt64? {
            if registration == nil && !ended { registration = await start() }
            return registration?.id
        }

        /// The next change; nil once the stream has ended. The form `for await` uses, so a loop
        /// on an actor (or the main actor) compiles without isolation errors; the waiting and
        /// computing happen on the notifier.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            await next()
        }

        /// The next change; nil once the stream has ended.
        public mutating func next() async -> Element? {
            guard !ended else { return nil }
            if registration == nil { registration = await start() }
            guard let registration, let element = await registration.notifier.next(registration.id) as? Element else {
                ended = true
                registration = nil  // unregisters
                return nil
            }
            return element
        }
    }
}

/// An observer's registration with the notifier; dropping it (the iterator goes away, the loop
/// ended) unregisters the observer.
final class Registration: Sendable {
    let notifier: Notifier
    let id: UInt64

    init(notifier: Notifier, id: UInt64) {
        self.notifier = notifier
        self.id = id
    }

    deinit {
        Task { [notifier, id] in await notifier.unregister(id) }
    }
}

extension Realm {
    /// The notifier of this handle's file.
    func notifier() -> Notifier? {
        try? Notifier.shared(for: file, configuration: configuration)
    }

    /// A collection stream of `results` from the notifier's newest version.
    func collectionChanges<T: Object>(_ results: Results<T>, keyPaths: [String]?) -> RealmChanges<RealmCollectionChange<FrozenResults<T>>> {
        precondition(!isFrozen, "Frozen results do not change; observe the live results instead")
        let query = ObservedQuery(results)
        let filter = ChangeFilter(keyPaths: keyPaths) ?? .everything(depth: ChangeFilter.defaultLinkDepth)
        let file = self.file, configuration = self.configuration
        return RealmChanges {
            guard let notifier = try? Notifier.shared(for: file, configuration: configuration) else { return nil }
            let id = await notifier.register { snapshot in CollectionChangeTracker<T>(query: query, filter: filter, snapshot: snapshot) }
            return Registration(notifier: notifier, id: id)
        }
    }

    /// Registers `tracker` (made at this handle's current version) when iteration starts. The
    /// notifier is made now, so it keeps the change logs of the commits in between.
    func changes<Element: Sendable>(startingFrom makeTracker: @escaping @Sendable (FrozenSnapshot) -> any ChangeTracker) -> RealmChanges<Element> {
        precondition(!isFrozen, "A frozen realm does not change; observe a live one")
        let snapshot = currentSnapshot()
        let notifier = try? Notifier.shared(for: file, configuration: configuration)
        return RealmChanges {
            guard let notifier else { return nil }
            let id = await notifier.register(baseline: snapshot) { makeTracker(snapshot) }
            return Registration(notifier: notifier, id: id)
        }
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
        changes(startingFrom: { RealmChangeTracker(snapshot: $0) })
    }

    /// The number of change observers (streams being iterated and notification blocks) of this
    /// realm's file in this process: a diagnostic, for example to check that observers are
    /// released.
    public var numberOfChangeObservers: Int { file.changeFeed.numberOfObservers }
}

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
        let className = state.table.name, key = state.key
        return state.realm.changes(startingFrom: { snapshot in
            ObjectChangeTracker<Self>(className: className, key: key, filter: filter, snapshot: snapshot)
        })
    }

    /// ``changes(keyPaths:)-([String]?)`` with key paths of the object's own properties (`\Dog.name`).
    public func changes(keyPaths: [PartialKeyPath<Self>]) -> RealmChanges<ObjectChange<Self>> {
        changes(keyPaths: keyPaths.map(QueryKeyPaths.name(ofProperty:)))
    }
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
