internal import RealmRuntime

/// The collections of objects — ``Results``, and `List`s, `MutableSet`s and ``LinkingObjects`` of
/// objects — for generic code: Realm Swift's `RealmCollection`.
///
/// ```swift
/// func oldest<C: RealmCollection>(_ dogs: C) -> Dog? where C.Element == Dog {
///     dogs.sorted(byKeyPath: "age", ascending: false).first
/// }
/// oldest(realm.objects(Dog.self))
/// oldest(person.dogs)
/// ```
///
/// Every query, sort, aggregate and observer of ``ObjectCollectionQueries`` applies; for a
/// collection of unknown type, wrap it in ``AnyRealmCollection``. Unlike Realm Swift's, the
/// protocol covers collections of objects only: lists and sets of values have their own
/// `sorted(ascending:)`, `distinct()` and aggregates, which return arrays.
public protocol RealmCollection<Element>: RandomAccessCollection, CustomStringConvertible, Equatable, ObjectCollectionQueries
    where Index == Int {
    /// The realm of the collection, or nil while unmanaged.
    var realm: Realm? { get }
    /// Whether the collection can no longer be read (its owner deleted, its realm invalidated).
    var isInvalidated: Bool { get }
    /// Whether the collection belongs to a frozen realm (it never changes).
    var isFrozen: Bool { get }
}

extension Results: ObjectCollectionQueries, RealmCollection, Equatable {
    /// The results themselves (what generic code over ``ObjectCollectionQueries`` queries).
    public var results: Results<Element> { self }

    /// Whether two results are the same query of the same handle: the same class, base
    /// collection, filters, distinct and sort. (Realm Swift compares the underlying collection
    /// object, so results made by two identical calls differ there; they are equal here.)
    public static func == (lhs: Results<Element>, rhs: Results<Element>) -> Bool {
        lhs.handle === rhs.handle && lhs.query == rhs.query
    }
}

extension CollectionLocation {
    /// Whether two managed collections are the same property of the same object, read through
    /// the same handle (Realm's equality of managed collections).
    func isSame(as other: CollectionLocation) -> Bool {
        realm === other.realm && ownerTable.name == other.ownerTable.name
            && ownerKey == other.ownerKey && column == other.column && nested == other.nested
    }
}

extension List: Equatable {
    /// Whether two lists are the same: the same property of the same object in the same
    /// handle, or (unmanaged) the same instance. Compare contents with `elementsEqual(_:)`.
    public static func == (lhs: List<Element>, rhs: List<Element>) -> Bool {
        guard let left = lhs.managedLocation, let right = rhs.managedLocation else { return lhs === rhs }
        return left.isSame(as: right)
    }
}

extension MutableSet: Equatable {
    /// Whether two sets are the same: the same property of the same object in the same handle,
    /// or (unmanaged) the same instance. Compare contents with `Set(_:)`.
    public static func == (lhs: MutableSet<Element>, rhs: MutableSet<Element>) -> Bool {
        guard let left = lhs.managedLocation, let right = rhs.managedLocation else { return lhs === rhs }
        return left.isSame(as: right)
    }
}

extension LinkingObjects: Equatable where Element: Object {
    /// Whether two linking-objects collections are the same: the objects linking to the same
    /// object through the same property, in the same handle (unmanaged: the same instance).
    public static func == (lhs: LinkingObjects<Element>, rhs: LinkingObjects<Element>) -> Bool {
        guard lhs.realm != nil, rhs.realm != nil else { return lhs === rhs }
        return lhs.results == rhs.results
    }
}

extension List: RealmCollection where Element: Object {}
extension MutableSet: RealmCollection where Element: Object {}
extension LinkingObjects: RealmCollection where Element: Object {}
