/// Any collection of objects — ``Results``, a `List`, a `MutableSet` or ``LinkingObjects`` —
/// behind one type: Realm Swift's `AnyRealmCollection`, for a property or a parameter that may
/// hold any of them.
///
/// ```swift
/// var shown: AnyRealmCollection<Dog> = AnyRealmCollection(realm.objects(Dog.self))
/// shown = AnyRealmCollection(person.dogs)
/// let puppies = shown.where { $0.age < 2 }
/// ```
///
/// Reads go to the wrapped collection; queries, sorts, aggregates and observers work as on it
/// (through its ``ObjectCollectionQueries/results``).
public struct AnyRealmCollection<Element: Object>: RealmCollection {
    /// The wrapped collection.
    let base: any RealmCollection<Element>

    /// Wraps `base`.
    public init<C: RealmCollection>(_ base: C) where C.Element == Element {
        if let erased = base as? AnyRealmCollection<Element> {
            self.base = erased.base
        } else {
            self.base = base
        }
    }

    /// The realm of the wrapped collection, or nil while unmanaged.
    public var realm: Realm? { base.realm }
    /// Whether the wrapped collection can no longer be read.
    public var isInvalidated: Bool { base.isInvalidated }
    /// Whether the wrapped collection belongs to a frozen realm.
    public var isFrozen: Bool { base.isFrozen }
    /// The wrapped collection's objects as live `Results`, in its order.
    public var results: Results<Element> { base.results }
    /// The number of objects.
    public var count: Int { base.count }
    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { base.count }

    /// The object at `position` (traps if out of bounds).
    public subscript(position: Int) -> Element {
        func element<C: RealmCollection>(_ collection: C) -> Element where C.Element == Element { collection[position] }
        return element(base)
    }

    /// The wrapped collection's description.
    public var description: String { base.description }

    /// Whether both wrap equal collections (see each collection's `==`).
    public static func == (lhs: AnyRealmCollection<Element>, rhs: AnyRealmCollection<Element>) -> Bool {
        func isEqual<C: RealmCollection>(_ left: C, _ right: any RealmCollection<Element>) -> Bool {
            guard let right = right as? C else { return false }
            return left == right
        }
        return isEqual(lhs.base, rhs.base)
    }
}
