/// The objects of a query seen through a ``Projection`` class: what `realm.objects(_:)` returns
/// for a projection type.
///
/// ```swift
/// let people = realm.objects(PersonProjection.self).filter("lastName == %@", "Snow")
/// for person in people { print(person.firstName) }  // each a PersonProjection
/// ```
///
/// Realm Swift names this type `Results<PersonProjection>`: its `Results` takes objects and
/// projections alike. RealmActors' ``Results`` holds objects only (`Results<Element: Object>`,
/// whose queries, sorting, aggregates and change streams are written for object classes), so
/// projections get this collection instead. It wraps the `Results` of the projection's root
/// class (``objects``) and projects each object as it is read; it is as live as those results.
/// Code that only iterates, counts, subscripts, filters or sorts compiles unchanged; code that
/// names the type `Results<PersonProjection>` must name `ProjectedResults<PersonProjection>`.
/// Filters, sort keys and `where` queries name the root object's properties, not the
/// projection's. Cost: as ``Results``, plus one small projection allocated per element read.
public struct ProjectedResults<Element: ProjectionObservable>: RandomAccessCollection, CustomStringConvertible
    where Element.Root: Object {
    /// The root objects, in order: element `i` projects `objects[i]`.
    public let objects: Results<Element.Root>

    /// The projections of `objects`.
    public init(_ objects: Results<Element.Root>) {
        self.objects = objects
    }

    /// The realm the results belong to.
    public var realm: Realm? { objects.realm }

    /// Whether the results belong to a frozen realm.
    public var isFrozen: Bool { objects.isFrozen }

    /// Whether the realm was invalidated since the results were made.
    public var isInvalidated: Bool { objects.isInvalidated }

    /// The first position, 0.
    public var startIndex: Int { 0 }

    /// The number of objects.
    public var endIndex: Int { objects.count }

    /// The number of objects.
    public var count: Int { objects.count }

    /// A projection of the object at `position`.
    public subscript(position: Int) -> Element {
        Element(projecting: objects[position])
    }

    /// The position of the object `projection` projects, or nil if it is not in the results.
    public func index(of projection: Element) -> Int? {
        objects.index(of: projection.rootObject)
    }

    /// The results narrowed by an `NSPredicate`-style format over the root class's properties
    /// (see ``Results/filter(_:_:)``).
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> ProjectedResults<Element> {
        ProjectedResults(objects.filter(predicateFormat, argumentArray: arguments))
    }

    /// ``filter(_:_:)`` with the arguments as an array.
    public func filter(_ predicateFormat: String, argumentArray arguments: [Any]) -> ProjectedResults<Element> {
        ProjectedResults(objects.filter(predicateFormat, argumentArray: arguments))
    }

    /// The results narrowed by a type-safe query over the root class's properties:
    ///
    /// ```swift
    /// realm.objects(PersonProjection.self).where { $0.age > 18 }
    /// ```
    public func `where`(_ isIncluded: (Query<Element.Root>) -> Query<Bool>) -> ProjectedResults<Element> {
        ProjectedResults(objects.where(isIncluded))
    }

    /// The results sorted by a property of the root class (a key path string, `"address.city"`
    /// through a link).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> ProjectedResults<Element> {
        ProjectedResults(objects.sorted(byKeyPath: keyPath, ascending: ascending))
    }

    /// The results sorted by a property of the root class.
    public func sorted<T: _Persistable>(by keyPath: KeyPath<Element.Root, T>, ascending: Bool = true) -> ProjectedResults<Element> {
        ProjectedResults(objects.sorted(by: keyPath, ascending: ascending))
    }

    /// The results sorted by several properties of the root class, the first deciding first.
    public func sorted<S: Sequence>(by descriptors: S) -> ProjectedResults<Element> where S.Element == SortDescriptor {
        ProjectedResults(objects.sorted(by: descriptors))
    }

    /// The results keeping one object for each distinct combination of the named properties of
    /// the root class.
    public func distinct<S: Sequence>(by keyPaths: S) -> ProjectedResults<Element> where S.Element == String {
        ProjectedResults(objects.distinct(by: keyPaths))
    }

    /// The smallest value of a property of the root class (`"age"`) over the objects, or nil
    /// if there are none: Realm Swift's aggregates on `Results<PersonProjection>`, which name the
    /// root's properties (see ``Results/min(ofProperty:)``).
    public func min<T: _Persistable>(ofProperty property: String) -> T? {
        objects.min(ofProperty: property)
    }

    /// The largest value of a property of the root class over the objects, or nil if there are
    /// none.
    public func max<T: _Persistable>(ofProperty property: String) -> T? {
        objects.max(ofProperty: property)
    }

    /// The sum of a numeric property of the root class over the objects (zero if there are none).
    public func sum<T: _Persistable>(ofProperty property: String) -> T {
        objects.sum(ofProperty: property)
    }

    /// The average of a numeric property of the root class over the objects, or nil if there
    /// are none.
    public func average<T: _Persistable>(ofProperty property: String) -> T? {
        objects.average(ofProperty: property)
    }

    /// `Results<PersonProjection> <3 objects>`, as Realm Swift prints the results of a projection.
    public var description: String { "Results<\(Element.self)> <\(count) objects>" }
}
