internal import RealmRuntime

extension Realm {
    /// The snapshot of the handle's current version (the same one for every freeze of it).
    func currentSnapshot() -> FrozenSnapshot {
        if let frozenSnapshot { return frozenSnapshot }
        precondition(writer == nil, "Cannot freeze a Realm, object or collection inside a write transaction")
        if let lastSnapshot, lastSnapshot.reader === reader, lastSnapshot.catalog === catalog { return lastSnapshot }
        let snapshot = FrozenSnapshot(configuration: configuration, version: FrozenVersion(file: file, reader: reader, catalog: catalog))
        lastSnapshot = snapshot
        return snapshot
    }

    /// How many versions of the file are live: the newest, and every older one an open handle,
    /// a frozen snapshot or a running iteration still reads. Old versions keep their pages from
    /// being reused; see ``Configuration/maximumNumberOfActiveVersions``.
    public var numberOfActiveVersions: Int { file.database.activeVersionCount }

    /// A `Sendable`, immutable snapshot of the realm at the handle's current version, to read
    /// from any actor or thread. It keeps that version (its pages) alive until released; freezing
    /// a version again shares the same one. Traps inside a write transaction.
    public func freeze() -> FrozenRealm {
        FrozenRealm(snapshot: currentSnapshot())
    }

    /// A frozen snapshot of `object` at its realm's current version: Realm Swift's
    /// `realm.freeze(_:)`, the same as `object.freeze()`. Returns a `Sendable` ``Frozen`` where
    /// Realm Swift returns a frozen `T` (DocC "Migrating from Realm Swift"). Traps if `object`
    /// is unmanaged.
    public func freeze<T: FreezableObject>(_ object: T) -> Frozen<T> { object.freeze() }

    /// A frozen snapshot of a collection of objects (results, a list or set of objects, linking
    /// objects): Realm Swift's `realm.freeze(_:)` for collections, the same as
    /// `collection.freeze()`, returning ``FrozenResults``.
    public func freeze<C: ObjectCollectionQueries>(_ collection: C) -> FrozenResults<C.Element> { collection.freeze() }

    /// The live object (or the projection of it), at this handle's version, of a frozen one;
    /// nil if it was deleted.
    public func thaw<T: Freezable>(_ frozen: Frozen<T>) -> T? {
        guard let table = catalog.tables[frozen.table.name], locate(table, frozen.key) != nil else { return nil }
        return T._viewing(managedObject(T._frozenRootType, table: table, key: frozen.key))
    }
}
