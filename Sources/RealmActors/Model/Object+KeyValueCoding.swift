internal import RealmRuntime

// Realm Swift's object members inherited from NSObject and RLMObjectBase: key-value coding by
// property name, the object's schema, and identity. RealmActors has no Objective-C runtime, so
// they are spelled out here over the dynamic subscript (``ObjectBase/subscript(_:)``).

extension ObjectBase {
    /// The value of the persisted property `key`, as the dynamic subscript reads it (links as
    /// objects, lists and sets as arrays, maps as dictionaries). Traps on a name that is not a
    /// persisted property, as Realm does.
    public func value(forKey key: String) -> Any? { self[key] }

    /// The value at a dotted key path through to-one links (`"owner.name"`); nil where a link
    /// on the way is nil.
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: ObjectBase = self
        let components = keyPath.split(separator: ".").map(String.init)
        for (index, name) in components.enumerated() {
            let value = current[name]
            guard index < components.count - 1 else { return value }
            guard let next = value as? ObjectBase else {
                if value == nil { return nil }
                fatalError("Key path '\(keyPath)' continues past '\(name)', which is not a link")
            }
            current = next
        }
        return current
    }

    /// Sets the persisted property `key` (in a write transaction, if managed); accepts what
    /// `Object(value:)` accepts for the property. Traps on an unknown name or a wrong type.
    public func setValue(_ value: Any?, forKey key: String) { self[key] = value }

    /// The schema of the object's class: from its realm once managed (so that a
    /// ``DynamicObject`` reports its stored class), else from the Swift class.
    public var objectSchema: ObjectSchema {
        ObjectSchema(realmState?.table.schema ?? ObjectSchemaDiscovery.schema(for: type(of: self)))
    }

    /// Whether `object` is this object: the same stored object read through a handle of the
    /// same file (`==` on objects means the same), or, unmanaged, the same instance.
    public func isSameObject(as object: ObjectBase?) -> Bool {
        guard let object else { return false }
        guard let mine = realmState, let theirs = object.realmState else { return self === object }
        return mine.realm.file === theirs.realm.file && mine.table.name == theirs.table.name && mine.key == theirs.key
    }

    /// The list property `propertyName` with its objects as ``DynamicObject``s (any model
    /// class): Realm Swift's `dynamicList(_:)`, for migrations and schema-agnostic code. Traps if
    /// the property is not a list of objects or the object is unmanaged.
    public func dynamicList(_ propertyName: String) -> List<DynamicObject> {
        List(location: dynamicCollection(propertyName, .list))
    }

    /// The set property `propertyName` with its objects as ``DynamicObject``s.
    public func dynamicMutableSet(_ propertyName: String) -> MutableSet<DynamicObject> {
        MutableSet(location: dynamicCollection(propertyName, .set))
    }

    /// The map property `propertyName` with its values as ``DynamicObject``s.
    public func dynamicMap(_ propertyName: String) -> Map<String, DynamicObject?> {
        Map(location: dynamicCollection(propertyName, .map))
    }

    /// Where the collection of objects `propertyName` of kind `kind` lives; traps otherwise.
    private func dynamicCollection(_ propertyName: String, _ kind: CollectionKind) -> CollectionLocation {
        guard let state = realmState else { fatalError("Dynamic collections need a managed object") }
        guard let column = state.table.columns[propertyName], let property = state.table.property(column) else {
            fatalError("Invalid property name '\(propertyName)' for class '\(state.table.name)'.")
        }
        guard property.collection == kind, property.kind == .object else {
            fatalError("Property '\(propertyName)' of class '\(state.table.name)' is not a \(kind) of objects")
        }
        return CollectionLocation(owner: self, column: column)
    }
}
