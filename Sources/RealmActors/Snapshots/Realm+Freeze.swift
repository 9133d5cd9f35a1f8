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

    /// The live object (or the projection of it), at this handle's version, of a frozen one;
    /// nil if it was deleted.
    public func thaw<T: Freezable>(_ frozen: Frozen<T>) -> T? {
        guard let table = catalog.tables[frozen.table.name], locate(table, frozen.key) != nil else { return nil }
        return T._viewing(managedObject(T._frozenRootType, table: table, key: frozen.key))
    }
}
