import Foundation
internal import RealmRuntime

/// A type that presents an object through a subset of its properties: what ``Projection``
/// subclasses are, and what `realm.objects(_:)` accepts to return ``ProjectedResults``. A
/// projection freezes into a `Frozen<Self>` (``freeze()``) and is observed
/// (``changes``, `observe(keyPaths:on:_:)`) like an object.
public protocol ProjectionObservable: AnyObject, Freezable, _ObjectObservable {
    /// The class of the projected objects.
    associatedtype Root: ObjectBase
    /// The projected object.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

extension ProjectionObservable {
    /// The root class: a frozen projection reads an object of it.
    public static var _frozenRootType: ObjectBase.Type { Root.self }

    /// A projection of `root`, an accessor of the root class.
    public static func _viewing(_ root: ObjectBase) -> Self { Self(projecting: root as! Root) }
}

/// A lightweight view of an object through chosen properties: Realm Swift's `Projection`.
///
/// Subclass it with the object class as `Root`, and declare each property with ``Projected``
/// and a key path of the object — a property, a value computed from one, a property of a linked
/// object, or a list's elements projected with `projectTo`:
///
/// ```swift
/// class Person: Object {
///     @Persisted var firstName = ""
///     @Persisted var lastName = ""
///     @Persisted var address: Address?
///     @Persisted var friends: List<Person>
/// }
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var friendsNames: ProjectedCollection<String>
/// }
///
/// for person in realm.objects(PersonProjection.self) { print(person.firstName, person.homeCity ?? "-") }
/// let projection = PersonProjection(projecting: someone)
/// try realm.write { projection.firstName = "Ann" }  // writes someone.firstName
/// ```
///
/// A projection holds no values of its own: every read goes to ``rootObject`` (so a projection of
/// a managed object is as live as the object), and every write to a projected property goes to
/// the object too, with the object's rules (a managed object is written in a write
/// transaction). Only key paths that can be written — a property of the object itself — can be
/// assigned; assigning through a computed or optional-chained key path traps.
open class Projection<Root: ObjectBase>: ProjectionObservable, Hashable, CustomStringConvertible {
    /// The projected object.
    public let rootObject: Root

    /// A projection of `object`, managed or not.
    ///
    /// Traps if a `@Projected` key path reads no persisted property of `Root` (as Realm Swift
    /// throws): its values would not come from the realm.
    public required init(projecting object: Root) {
        rootObject = object
        _ = ProjectionSchema.properties(of: self)
    }

    /// The realm of the projected object, or nil while it is unmanaged.
    public var realm: Realm? { rootObject.realm }

    /// Whether the projected object was deleted, or its realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// Whether the projected object belongs to a frozen realm.
    public var isFrozen: Bool { rootObject.isFrozen }

    /// Two projections are equal when they project the same object (the same instance, or
    /// accessors of the same stored object), as in Realm Swift.
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        lhs.rootObject == rhs.rootObject
    }

    /// Hashes the projected object's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject)
    }

    /// The projection's class, the object's class, and each projected property with the name of
    /// the object's property it reads and its value, as Realm Swift prints projections:
    ///
    /// ```
    /// PersonProjection<Person> <0x600000c58000> {
    /// 		firstName(\.firstName) = Ann;
    /// }
    /// ```
    open var description: String {
        let address = Unmanaged.passUnretained(rootObject).toOpaque()
        let lines = ProjectionSchema.properties(of: self).map { property in
            "\t\t\(property.label)(\\.\(property.originName)) = \(Self.describe(rootObject[keyPath: property.keyPath]));"
        }
        return "\(type(of: self))<\(type(of: rootObject))> <\(address)> {\n" + lines.joined(separator: "\n") + "\n}"
    }

    private static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            return mirror.children.first.map { describe($0.value) } ?? "nil"
        }
        return "\(value)"
    }
}

/// The `@Projected` properties of each projection class, found once by reflection.
enum ProjectionSchema {
    /// A projected property: its label, its key path of the root class, and the name of the
    /// root's property the key path starts with.
    ///
    /// `@unchecked Sendable`: a key path object is immutable once made, so any thread may use
    /// it; the other fields are strings.
    struct Property: @unchecked Sendable {
        let label: String
        let keyPath: AnyKeyPath
        let originName: String
    }

    private static let cache = Lock<[ObjectIdentifier: [Property]]>([:])

    /// The projected properties of `projection`'s class, in declaration order (superclasses
    /// first). Traps if a key path reads no persisted property of the root class.
    static func properties<P: ProjectionObservable>(of projection: P) -> [Property] {
        typealias Root = P.Root
        let id = ObjectIdentifier(type(of: projection))
        if let known = cache.withLock({ $0[id] }) { return known }
        var levels: [[Property]] = []
        var mirror: Mirror? = Mirror(reflecting: projection)
        while let current = mirror {
            levels.append(current.children.compactMap { child in
                guard let label = child.label, let projected = child.value as? any AnyProjected else { return nil }
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                guard let origin = originName(of: projected.anyKeyPath, root: Root.self) else {
                    fatalError("@Projected property '\(name)' must be a part of Realm object: \(projected.anyKeyPath) reads no @Persisted property of \(Root.self)")
                }
                return Property(label: name, keyPath: projected.anyKeyPath, originName: origin)
            })
            mirror = current.superclassMirror
        }
        let properties = levels.reversed().flatMap { $0 }
        cache.withLock { $0[id] = properties }
        return properties
    }

    /// The projected properties `names` designate: a projected property's name designates it;
    /// a root key path (`"lastName"`, `"address.city"`) designates every projected property
    /// reading the property it starts with. Every property for nil or no names. Traps on a name
    /// that designates none, as Realm Swift throws.
    static func observed<P>(_ names: [String]?, in properties: [Property], of projection: P.Type) -> [Property] {
        guard let names, !names.isEmpty else { return properties }
        var labels = Set<String>(), origins = Set<String>()
        for name in names {
            if properties.contains(where: { $0.label == name }) {
                labels.insert(name)
                continue
            }
            let first = String(name.prefix { $0 != "." })
            guard properties.contains(where: { $0.originName == first }) else {
                fatalError("'\(name)' is not a projected property of \(P.self), nor a key path of a property it projects")
            }
            origins.insert(first)
        }
        return properties.filter { labels.contains($0.label) || origins.contains($0.originName) }
    }

    /// The root property a key path of a projection class reads (`\PersonProjection.lastNameCaps`
    /// reads `lastName`), learnt by reading it on a projection of a probe object.
    /// (`keyPath` is of `P`; one of another root reads nothing, and traps.)
    static func rootPropertyName<P: ProjectionObservable>(of keyPath: AnyKeyPath, in projection: P.Type) -> String {
        let probe = P.Root()
        let recorder = KeyPathRecorder()
        probe.keyPathRecorder = recorder
        _ = P(projecting: probe)[keyPath: keyPath]
        guard let name = recorder.names.first else {
            fatalError("\(keyPath) reads no @Persisted property of \(P.Root.self)")
        }
        return name
    }

    /// The name of the first persisted property `keyPath` reads, learnt by reading it on a probe
    /// instance whose property reads record their names (see ``QueryKeyPaths``); nil if it reads none.
    private static func originName(of keyPath: AnyKeyPath, root: ObjectBase.Type) -> String? {
        let probe = root.init()
        let recorder = KeyPathRecorder()
        probe.keyPathRecorder = recorder
        _ = probe[keyPath: keyPath]
        return recorder.names.first
    }
}
