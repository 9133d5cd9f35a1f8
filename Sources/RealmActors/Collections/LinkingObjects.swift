internal import RealmRuntime

/// The objects that link to an object through one property: Realm Swift's `LinkingObjects`, an
/// inverse relationship computed from the links, never stored.
///
/// ```swift
/// class Dog: Object {
///     @Persisted var name = ""
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// class Person: Object {
///     @Persisted var dogs: List<Dog>
/// }
/// rex.owners.count  // the people whose `dogs` contain rex
/// ```
///
/// Live: it reflects the links at the realm's current version. Empty while the object is
/// unmanaged. The origin property may be a to-one link, a `List`, a `MutableSet` or a `Map`.
/// Cost: a lookup in the origin property's link index, O(log n + k), made again when the realm's
/// version or the transaction's content has changed.
public final class LinkingObjects<Element: ObjectBase>: RandomAccessCollection, CustomStringConvertible {
    /// The name of the property of `Element` that links here.
    public let propertyName: String
    /// The linked object, once managed (nil while it is unmanaged).
    private let target: ObjectBase?
    private var cached: (stamp: UInt64, keys: [UInt64])?

    /// An unbound description of an inverse relationship (for declarations written the older way;
    /// prefer `@Persisted(originProperty:)`).
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        target = nil
    }

    init(target: ObjectBase?, propertyName: String) {
        self.propertyName = propertyName
        self.target = target
    }

    /// The realm of the linked object, or nil while it is unmanaged.
    public var realm: Realm? { target?.managingRealm }

    /// Whether the linked object was deleted (or its realm invalidated).
    public var isInvalidated: Bool { target.map { $0.location() == nil } ?? false }

    /// Whether the collection belongs to a frozen realm (it never changes); false while unmanaged.
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// The number of linking objects.
    public var count: Int { keys().count }
    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The linking object at `position`.
    public subscript(position: Int) -> Element {
        let keys = keys()
        precondition(position >= 0 && position < keys.count, "Index \(position) is out of bounds")
        let realm = target!.managingRealm!
        return realm.accessor(Element.self, table: realm.table(for: Element.self)!, key: keys[position]) as! Element
    }

    /// Whether `object` links here.
    public func contains(_ object: Element) -> Bool {
        guard let state = object.realmState, let target, state.realm.file === target.managingRealm?.file else { return false }
        return keys().contains(state.key)
    }

    /// The position of `object`, or nil.
    public func index(of object: Element) -> Int? {
        guard let state = object.realmState else { return nil }
        return keys().firstIndex(of: state.key)
    }

    /// `LinkingObjects<Person> <n objects>`.
    public var description: String { "LinkingObjects<\(Element.className())> <\(count) objects>" }

    /// The keys of the linking objects at the realm's current version.
    var objectKeys: [UInt64] { keys() }

    /// These linking objects as the base of a `Results` (nil when unmanaged).
    var resultsBase: QueryBase? {
        target.map { .linkingObjects(targetClass: $0.managedTable!.name, targetKey: $0.managedKey, originClass: Element.className(), property: propertyName) }
    }

    private func keys() -> [UInt64] {
        guard let target, let base = resultsBase else { return [] }
        let realm = target.managingRealm!
        if let cached, cached.stamp == realm.stamp { return cached.keys }
        let keys = realm.query { try $0.objectKeys(of: base) }
        cached = (realm.stamp, keys)
        return keys
    }
}

extension LinkingObjects: _Persistable {
    /// An empty, unbound value (the real one comes from `@Persisted(originProperty:)`).
    public static var _rlmDefaultValue: LinkingObjects<Element> { LinkingObjects(target: nil, propertyName: "") }
    /// Computed: not stored.
    public static var _rlmType: _RealmPropertyType {
        var type = _RealmPropertyType(kind: .object, isOptional: false, objectType: Element.self)
        type.isLinkingObjects = true
        return type
    }
    /// Not used: linking objects are built from their declaration (see `Persisted`).
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> LinkingObjects<Element> { _rlmDefaultValue }
    /// Never stored.
    public var _rlmValue: _RealmValue { _RealmValue(.null) }
    /// Never read from a stored value.
    public static func _rlmFromValue(_ stored: _RealmValue) -> LinkingObjects<Element>? { nil }
}

/// Lets `Persisted` build a `LinkingObjects` of any element type for its object.
protocol LinkingObjectsBuilding {
    static func linkingObjects(to object: ObjectBase, property: String) -> Self
    /// The origin property (what an unbound value in a wrapper records).
    var propertyName: String { get }
}

extension LinkingObjects: LinkingObjectsBuilding {
    static func linkingObjects(to object: ObjectBase, property: String) -> LinkingObjects<Element> {
        LinkingObjects(target: object.managingRealm == nil ? nil : object, propertyName: property)
    }
}
