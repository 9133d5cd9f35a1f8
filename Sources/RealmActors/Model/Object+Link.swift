internal import RealmRuntime

/// Objects are persistable as links: `@Persisted var owner: Person?` stores the linked object's
/// key in an integer column, and the table keeps an index of who links to whom (backlinks), so
/// that deleting an object unlinks it everywhere and ``LinkingObjects`` is a lookup, not a scan.
extension ObjectBase: _PersistableNonOptional {
    /// A new unmanaged instance (links are always optional, so this is never stored).
    public static var _rlmDefaultValue: Self { Self() }
    /// A link to this class.
    public static var _rlmType: _RealmPropertyType {
        _RealmPropertyType(kind: .object, isOptional: false, objectType: self)
    }
    /// The linked object: a new accessor of it (the `Optional` wrapper handles nil).
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Self {
        let (leaf, row) = object.managedLocation()
        let state = object.realmState!
        let key = UInt64(bitPattern: leaf.int(row, column))
        guard let linked = state.realm.linkedObject(key, className: state.table.property(column)?.objectClassName, type: self) as? Self else {
            fatalError("The link '\(state.table.name).\(state.table.property(column)?.name ?? "?")' does not point to a '\(self)'")
        }
        return linked
    }
    /// The object, to be resolved (and added if unmanaged) when stored.
    public var _rlmValue: _RealmValue { _RealmValue(.object(self)) }
    /// The object, if the value is one of this class.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        if case .object(let object) = stored.storage { return object as? Self }
        return nil
    }
}

extension Realm {
    // MARK: Storing values

    /// Turns a value into what its column stores: scalars as they are, links as the linked
    /// object's key (adding an unmanaged object first, with `update`), collections packed, and
    /// `AnyRealmValue`s tagged.
    ///
    /// - Throws: `invalidInput` for a value that does not fit the property, or whatever adding a
    ///   linked object throws (a duplicate primary key…).
    func storedValue(_ value: _RealmValue, for property: PropertyInfo, update: UpdatePolicy = .error) throws -> ColumnValue {
        guard let collection = property.collection else { return try storedElement(value, for: property, update: update) }
        let element = property.element
        var content = value.storage
        if case .collection(let source) = content { content = source._rlmContent.storage }
        switch (collection, content) {
        case (.map, .entries(let entries)):
            let stored = try entries.map { (key: $0.0, value: try storedElement($0.1, for: element, update: update)) }
            return .bytes(PackedCollection.encode(PackedCollection.mapElements(stored)))
        case (.list, .elements(let elements)):
            return .bytes(PackedCollection.encode(try elements.map { try storedElement($0, for: element, update: update) }))
        case (.set, .elements(let elements)):
            if elements.contains(where: { if case .mixed(let mixed) = $0.storage { mixed.isCollection } else { false } }) {
                throw Realm.Error(.invalidInput, "A set of AnyRealmValue cannot hold a list or a dictionary ('\(property.name)')")
            }
            let stored = try elements.map { try storedElement($0, for: element, update: update) }
            return .bytes(PackedCollection.encode(PackedCollection.setElements(stored)))
        case (_, .stored(.null)):
            return .bytes(PackedCollection.encode([]))
        default:
            throw Realm.Error(.invalidInput, "Invalid value for \(property.typeName) property '\(property.name)'")
        }
    }

    /// One value (or collection element) in stored form.
    func storedElement(_ value: _RealmValue, for property: PropertyInfo, update: UpdatePolicy) throws -> ColumnValue {
        switch (property.kind, value.storage) {
        case (_, _) where value.isNil:
            guard property.isOptional || property.kind == .mixed else {
                throw Realm.Error(.invalidInput, "Property '\(property.name)' of type '\(property.typeName)' cannot be nil")
            }
            return .null
        case (.object, .object(let object?)):
            return .int(Int64(bitPattern: try linkKey(for: object, className: property.objectClassName, update: update)))
        case (.mixed, .mixed(let mixed)):
            return try storedMixed(mixed, update: update)
        case (.object, _), (.mixed, _):
            throw Realm.Error(.invalidInput, "Invalid value for \(property.typeName) property '\(property.name)'")
        case (_, .stored(let stored)):
            return stored
        default:
            throw Realm.Error(.invalidInput, "Invalid value for \(property.typeName) property '\(property.name)'")
        }
    }

    /// The key of the object a link points to, adding it first if it is unmanaged: an embedded
    /// object becomes a new object owned by the link's owner; any other object is added with
    /// `update` (as Realm adds the objects a new object links to).
    func linkKey(for object: ObjectBase, className: String?, update: UpdatePolicy) throws -> UInt64 {
        let type = type(of: object)
        // The object's class as stored (a managed `DynamicObject` has its table's), else its Swift class's.
        // An unmanaged dynamic object (a nested value for a class without a Swift class) takes
        // the class of the property it is stored in.
        let isUnboundDynamic = object is DynamicObject && object.realmState == nil
        if let className, !isUnboundDynamic, object.objectClassName != className {
            throw Realm.Error(.invalidInput, "Object of type '\(object.objectClassName)' cannot be linked from a property of type '\(className)'")
        }
        if let state = object.realmState {
            guard object.location() != nil else { fatalError("Adding a deleted or invalidated object to a Realm is not permitted") }
            if state.realm.file !== file {
                // An object of another realm (reached through `create(_:value:)`): copied, as Realm does.
                let copy = type.init()
                copy.dynamicValues = try ObjectValues.values(for: type, from: object)
                return try linkKey(for: copy, className: className, update: update)
            }
            precondition(!(object is EmbeddedObject), "Cannot set a link to an existing managed embedded object")
            return state.key
        }
        let table: Table
        if isUnboundDynamic {
            guard let className, let known = catalog.tables[className] else {
                throw Realm.Error(.invalidInput, "A dynamic object can be linked only from a property of a class of the realm")
            }
            table = known
        } else {
            table = try tableCreatingIfNeeded(for: type)
        }
        // Without a primary key there is nothing to update: a linked object is simply inserted.
        return try insertOrUpdate(object, in: table, update: table.primaryKeyColumn == nil ? .error : update)
    }

    // MARK: Reading values

    /// An accessor of the object `key` of class `className`. `type` is the Swift class expected;
    /// without one, the class registered under the name (or a ``DynamicObject``).
    func linkedObject(_ key: UInt64, className: String?, type: ObjectBase.Type?) -> ObjectBase? {
        guard let className, let table = catalog.tables[className] else { return nil }
        let objectType = type ?? ObjectSchemaDiscovery.registeredType(named: className) ?? DynamicObject.self
        return accessor(objectType, table: table, key: key)
    }

    /// A new accessor of a stored object.
    func accessor(_ type: ObjectBase.Type, table: Table, key: UInt64) -> ObjectBase {
        let object = type.init()
        object.attach(to: self, table: table, key: key)
        return object
    }

    /// A stored value (or collection element) as a `_RealmValue` a Swift type converts from.
    /// A mixed value's nested collection is live at `location` if one is given.
    func realmValue(_ stored: ColumnValue, element property: PropertyInfo, type: ObjectBase.Type?,
                    location: CollectionLocation? = nil) -> _RealmValue {
        switch property.kind {
        case .object:
            guard case .int(let key) = stored else { return _RealmValue(.object(nil)) }
            return _RealmValue(.object(linkedObject(UInt64(bitPattern: key), className: property.objectClassName, type: type)))
        case .mixed:
            return _RealmValue(.mixed(anyRealmValue(stored, at: location)))
        default:
            return _RealmValue(stored)
        }
    }

    /// A stored element converted to the Swift type `E`.
    func element<E: _Persistable>(_ type: E.Type, _ stored: ColumnValue, property: PropertyInfo) -> E {
        E._rlmFromValue(realmValue(stored, element: property, type: E._rlmType.objectType)) ?? E._rlmDefaultValue
    }
}
