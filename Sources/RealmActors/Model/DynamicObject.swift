internal import RealmRuntime

/// An object read by class name, without its Swift class: Realm Swift's `DynamicObject`.
///
/// ```swift
/// for dog in realm.dynamicObjects("Dog") {
///     print(dog["name"] as? String ?? "")
/// }
/// ```
///
/// Properties are read and written by name with the subscript (see ``ObjectBase/subscript(_:)``),
/// following the realm's schema, or as members (`dog.name`), as in Realm Swift. Links to classes
/// without a Swift class in the program also read as dynamic objects.
@dynamicMemberLookup
public final class DynamicObject: Object {
    /// `"DynamicObject"`; a managed dynamic object prints and reports its stored class.
    public override class func className() -> String { "DynamicObject" }

    /// The persisted property `member` (`dog.name`), read or written as with
    /// ``ObjectBase/subscript(_:)``: a name the schema does not have traps.
    public subscript(dynamicMember member: String) -> Any? {
        get { self[member] }
        set { self[member] = newValue }
    }
}

extension Realm {
    /// Every object of the class named `className`, as ``DynamicObject``s (empty if the realm has
    /// no such class).
    public func dynamicObjects(_ className: String) -> Results<DynamicObject> {
        Results(realm: self, className: className)
    }

    /// Creates an object of the class named `typeName` (a class of the realm, with or without a
    /// Swift class in the program) from a dictionary, an array or an object, as
    /// ``create(_:value:update:)`` does: Realm Swift's `dynamicCreate`. Must be called in a write
    /// transaction; an unknown class traps, as does an update policy on a class without a primary
    /// key.
    ///
    /// ```swift
    /// try realm.write { realm.dynamicCreate("Dog", value: ["name": "Rex", "age": 3]) }
    /// ```
    @discardableResult
    public func dynamicCreate(_ typeName: String, value: Any = [String: Any](), update: UpdatePolicy = .error) -> DynamicObject {
        _ = requireWrite()
        guard let table = catalog.tables[typeName] else { fatalError("Object type '\(typeName)' is not managed by the Realm") }
        if update != .error && table.primaryKeyColumn == nil {
            fatalError("'\(typeName)' does not have a primary key and can not be updated")
        }
        let object = DynamicObject()
        do {
            try create(object, values: ObjectValues.values(for: table.schema, from: value, classes: { self.catalog.tables[$0]?.schema }),
                       in: table, update: update)
        } catch {
            recordDeferredError(error)
        }
        return object
    }

    /// The object of the class named `className` whose primary key is `key`, as a
    /// ``DynamicObject``, or nil. Traps if the class has no primary key or `key` has the wrong
    /// type, as in Realm.
    public func dynamicObject(ofType className: String, forPrimaryKey key: Any) -> DynamicObject? {
        guard let table = catalog.tables[className] else { return nil }
        return object(in: table, forPrimaryKey: key).map { managedObject(DynamicObject.self, table: table, key: $0) }
    }
}

extension FrozenRealm {
    /// Every object of the class named `className` at this version (a class of the realm, with
    /// or without a Swift class in the program), read by property name: the frozen form of
    /// ``Realm/dynamicObjects(_:)``. Empty for a class the realm does not have.
    ///
    /// ```swift
    /// for item in snapshot.dynamicObjects("Item") {
    ///     item.read { print($0["name"] ?? "") }
    /// }
    /// ```
    public func dynamicObjects(_ className: String) -> FrozenResults<DynamicObject> {
        FrozenResults(snapshot: snapshot, table: snapshot.catalog.tables[className], keys: nil,
                      query: ObjectQuery(className: className))
    }
}
