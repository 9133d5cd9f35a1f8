internal import RealmRuntime

// Observing a projection: the root object's changes (`objectChanges`), counting only the root
// properties the projection reads, each reported under the names of the projected properties
// that read it, with their projected values. `observe(keyPaths:on:_:)` and the rest of the
// family are `_ObjectObservable`'s, shared with objects.

extension ProjectionObservable {
    /// The changes of the projected object from its handle's current version on, as the
    /// projection sees them: `.change` with a frozen projection after each commit that changed
    /// a root property a projected property reads (through links, any change of the linked
    /// objects), `.deleted` (then the stream ends). No initial element.
    ///
    /// Each ``PropertyChange`` names a projected property; a root property read by several of
    /// them reports each one. Its values are the projected values (`lastNameCaps`, not
    /// `lastName`): the new one read at the new version, the old one for a projected property
    /// that reads a stored scalar of the root itself (nil through links and collections, and
    /// for values that are not scalars).
    ///
    /// ```swift
    /// for await change in projection.changes {
    ///     if case .change(let person, let properties) = change { print(person.firstName, properties.map(\.name)) }
    /// }
    /// ```
    public var changes: RealmChanges<ObjectChange<Self>> { changes(keyPaths: nil) }

    /// ``changes`` where only the named projected properties count.
    ///
    /// A name is a projected property's name (`"lastNameCaps"`): a change of the root property
    /// it reads reports it. Or it is a key path of the root starting with a property that
    /// projected properties read (`"lastName"`, as Realm Swift accepts): a change of that
    /// property reports every projected property reading it. An empty array or nil counts every
    /// projected property. Traps on a name that is neither, as Realm Swift throws.
    public func changes(keyPaths: [String]?) -> RealmChanges<ObjectChange<Self>> {
        observedChanges(keyPaths: keyPaths)
    }

    /// ``changes(keyPaths:)-([String]?)`` with key paths of the projection's properties
    /// (`\PersonProjection.lastNameCaps`); each stands for the root property it reads, so
    /// every projected property reading that one is reported, as in Realm Swift.
    public func changes(keyPaths: [PartialKeyPath<Self>]) -> RealmChanges<ObjectChange<Self>> {
        changes(keyPaths: keyPaths.map(Self._observedName(of:)))
    }

    /// The root object's changes where the root properties read by the projected properties
    /// `keyPaths` designate count, each described by the projected properties reading them.
    public func _observation(keyPaths: [String]?) -> _ObjectObservation {
        guard let state = rootObject.realmState else { fatalError("Only projections of managed objects can be observed") }
        let observed = ProjectionSchema.observed(keyPaths, in: ProjectionSchema.properties(of: self), of: Self.self)
        var filter: [String: ChangeFilter?] = [:]
        for name in Set(observed.map(\.originName)) {
            // A link counts the linked objects' changes too: the projected key path may read them.
            let isLink = state.table.columns[name].flatMap(state.table.property)?.kind == .object
            filter.updateValue(isLink ? .everything(depth: ChangeFilter.defaultLinkDepth - 1) : nil, forKey: name)
        }
        return _ObjectObservation(object: rootObject, filter: .properties(filter)) { changes, table, root in
            Self.projectedChanges(changes, table: table, root: root, properties: observed)
        }
    }

    /// The root property a key path of the projection's properties reads
    /// (`\PersonProjection.lastNameCaps` is `"lastName"`).
    public static func _observedName<Root>(of keyPath: PartialKeyPath<Root>) -> String {
        ProjectionSchema.rootPropertyName(of: keyPath, in: Self.self)
    }

    /// The changes of the root object's properties read by `properties`, named as they are;
    /// `root` is a frozen accessor of the root at the changed version.
    private static func projectedChanges(_ changes: [PropertyValueChange], table: Table, root: ObjectBase,
                                         properties: [ProjectionSchema.Property]) -> [PropertyChange] {
        changes.flatMap { change -> [PropertyChange] in
            guard let stored = table.property(change.column) else { return [] }
            let affected = properties.filter { $0.originName == stored.name }
            guard !affected.isEmpty else { return [] }
            let oldRoot = unmanagedRoot(withOldValueOf: change, stored)
            return affected.map { property in
                PropertyChange(name: property.label,
                               oldValue: oldRoot.flatMap { PropertyChange.sendable($0[keyPath: property.keyPath]) },
                               newValue: PropertyChange.sendable(root[keyPath: property.keyPath]))
            }
        }
    }

    /// An unmanaged root object holding the old value of a changed scalar property, to read the
    /// projected key paths on; nil for links, collections and `AnyRealmValue`.
    private static func unmanagedRoot(withOldValueOf change: PropertyValueChange, _ property: PropertyInfo) -> ObjectBase? {
        guard let old = change.old, property.collection == nil, property.kind != .object, property.kind != .mixed else { return nil }
        let root = Root()
        root.recordUnmanagedValue(_RealmValue(old), named: property.name)
        return root
    }
}
