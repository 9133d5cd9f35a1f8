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

    /// The object of the class named `className` whose primary key is `key`, as a
    /// ``DynamicObject``, or nil. Traps if the class has no primary key or `key` has the wrong
    /// type, as in Realm.
    public func dynamicObject(ofType className: String, forPrimaryKey key: Any) -> DynamicObject? {
        guard let table = catalog.tables[className] else { return nil }
        return object(in: table, forPrimaryKey: key).map { managedObject(DynamicObject.self, table: table, key: $0) }
    }
}
