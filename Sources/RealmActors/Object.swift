import Foundation
internal import RealmRuntime

/// The base of every class RealmActors persists: ``Object`` and, later, `EmbeddedObject`.
///
/// Subclasses declare `@Persisted` properties; anything else is an ordinary Swift property that
/// RealmActors ignores. An instance starts *unmanaged* (a plain object holding its own values);
/// `realm.add(_:)` makes that same instance *managed*: its persisted properties then read and
/// write the realm.
open class ObjectBase {
    /// Creates an unmanaged object; properties take the initial values of their declarations.
    public required init() {}

    /// The realm, table and key of a managed object; nil while unmanaged.
    final var realmState: ObjectState?

    /// Values an unmanaged object was given by property name (`Object(value:)`, `obj["x"] = …`);
    /// they take precedence over the wrappers' own values until a property is set directly.
    final var dynamicValues: [String: ColumnValue]?

    /// The leaf and row holding this managed object at its realm's current version.
    /// Traps, as Realm does, if the object was deleted or its realm invalidated.
    @inline(__always)
    final func managedLocation() -> (ClusterLeaf, Int) {
        guard let location = realmState?.location() else {
            fatalError("Object has been deleted or invalidated.")
        }
        return location
    }

    /// Calls `body` with the bytes of a byte-string column of this managed object.
    final func managedBytes<R>(_ column: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let (leaf, row) = managedLocation()
        return realmState!.realm.withBytes(leaf.storedBytes(row, column), body)
    }
}

/// A class whose instances are stored in a realm: Realm Swift's `Object`.
///
/// ```swift
/// class Dog: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted var name = ""
///     @Persisted var age: Int?
/// }
/// ```
open class Object: ObjectBase, Hashable, CustomStringConvertible {
    /// The realm managing this object, or nil while it is unmanaged.
    public var realm: Realm? { realmState?.realm }

    /// Whether the object was deleted, or its realm invalidated, since it was read.
    public var isInvalidated: Bool {
        guard let state = realmState else { return false }
        return state.location() == nil
    }

    /// Whether the object is a frozen snapshot (frozen objects arrive with the actor runtime).
    public var isFrozen: Bool { false }

    /// The name under which the class is stored: the Swift class name, unqualified.
    open class func className() -> String {
        String(describing: self)
    }

    /// Two objects are equal if they are the same instance, or manage the same stored object.
    public static func == (lhs: Object, rhs: Object) -> Bool {
        if lhs === rhs { return true }
        guard let left = lhs.realmState, let right = rhs.realmState else { return false }
        return left.realm.file === right.realm.file && left.table.tree == right.table.tree && left.key == right.key
    }

    /// Hashes the stored object's identity (or the instance's, while unmanaged).
    public func hash(into hasher: inout Hasher) {
        if let state = realmState {
            hasher.combine(state.table.tree)
            hasher.combine(state.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }

    /// The class name and every persisted property, as Realm prints objects.
    open var description: String {
        let schema = ObjectSchemaDiscovery.schema(for: type(of: self))
        let fields = schema.properties.map { "\t\($0.name) = \(self[$0.name].map { "\($0)" } ?? "nil");" }
        return "\(Self.className()) {\n" + fields.joined(separator: "\n") + "\n}"
    }

    /// Reads or writes a persisted property by name (dynamic access).
    ///
    /// Reading a name that is not a persisted property, or writing a value of the wrong type,
    /// traps with a message naming the property, as in Realm.
    public subscript(key: String) -> Any? {
        get {
            guard let property = ObjectSchemaDiscovery.schema(for: type(of: self)).properties.first(where: { $0.name == key }) else {
                fatalError("Invalid property name '\(key)' for class '\(Self.className())'.")
            }
            let value: ColumnValue
            if let state = realmState {
                guard let column = state.table.columns[key] else { return nil }
                value = state.realm.value(of: state, column: column)
            } else {
                value = ObjectSchemaDiscovery.unmanagedValues(of: self)[key] ?? .null
            }
            return property.swiftValue(value)
        }
        set {
            guard let property = ObjectSchemaDiscovery.schema(for: type(of: self)).properties.first(where: { $0.name == key }) else {
                fatalError("Invalid property name '\(key)' for class '\(Self.className())'.")
            }
            let value: ColumnValue
            do {
                value = try property.columnValue(from: newValue, className: Self.className())
            } catch {
                fatalError("\(error)")
            }
            if let state = realmState {
                guard let column = state.table.columns[key] else { fatalError("Property '\(key)' is not in the realm's schema") }
                state.realm.set(value, column: column, of: state)
            } else {
                dynamicValues = (dynamicValues ?? [:]).merging([key: value]) { $1 }
            }
        }
    }
}

/// Where a managed object lives, and a cache of its position at the realm's current version.
///
/// The cache is what makes a property read cheap: while the realm's `stamp` is unchanged (no
/// refresh, no change in the current write transaction) the leaf pointer and row stay valid, so a
/// read is a comparison, a load from the leaf's column array and nothing else.
final class ObjectState {
    let realm: Realm
    let table: Table
    let key: UInt64
    private var stamp: UInt64 = .max
    private var leaf: UnsafeRawPointer?
    private var row = 0

    /// The realm's invalidation count when this object was read.
    private let generation: UInt64

    init(realm: Realm, table: Table, key: UInt64) {
        self.realm = realm
        self.table = table
        self.key = key
        generation = realm.invalidations
    }

    /// A state whose position is already known (the object was found by walking its table), so
    /// its first property read needs no lookup.
    init(realm: Realm, table: Table, leaf: ClusterLeaf, row: Int) {
        self.realm = realm
        self.table = table
        key = leaf.key(row)
        generation = realm.invalidations
        stamp = realm.stamp
        self.leaf = leaf.base
        self.row = row
    }

    /// The leaf and row of the object now, or nil if it no longer exists (or its realm was
    /// invalidated since it was read).
    @inline(__always)
    func location() -> (ClusterLeaf, Int)? {
        if stamp == realm.stamp, let leaf { return (ClusterLeaf(leaf), row) }
        guard generation == realm.invalidations else { return nil }
        guard let (found, foundRow) = realm.locate(table, key) else {
            leaf = nil
            return nil
        }
        stamp = realm.stamp
        leaf = found.base
        row = foundRow
        return (found, foundRow)
    }
}
