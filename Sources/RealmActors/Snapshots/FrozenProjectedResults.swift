/// ``ProjectedResults`` frozen at one version: `Sendable`, immutable, a `RandomAccessCollection`
/// of frozen projections. Made by ``ProjectedResults/freeze()`` and delivered by
/// ``ProjectedResults/changes``; Realm Swift's frozen `Results<PersonProjection>`.
///
/// ```swift
/// let people = realm.objects(PersonProjection.self).freeze()
/// Task.detached { for person in people { print(person.firstName) } }
/// ```
///
/// It wraps the ``FrozenResults`` of the root objects (``objects``) and presents element `i` as
/// the projection of `objects[i]`; filters and sort keys name the root's properties, as for
/// ``ProjectedResults``.
public struct FrozenProjectedResults<Element: ProjectionObservable>: RandomAccessCollection, Sendable
    where Element.Root: Object {
    /// The frozen root objects, in order: element `i` projects `objects[i]`.
    public let objects: FrozenResults<Element.Root>

    /// The projections of frozen `objects`.
    public init(_ objects: FrozenResults<Element.Root>) {
        self.objects = objects
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }

    /// The number of objects.
    public var endIndex: Int { objects.count }

    /// The frozen projection of the object at `position`.
    public subscript(position: Int) -> Frozen<Element> {
        Frozen(objects[position])
    }

    /// Always true: the results are frozen.
    public var isFrozen: Bool { true }

    /// The frozen projections whose root objects match a type-safe query, at the same version.
    public func `where`(_ isIncluded: (Query<Element.Root>) -> Query<Bool>) -> FrozenProjectedResults<Element> {
        FrozenProjectedResults(objects.where(isIncluded))
    }

    /// The frozen projections whose root objects match a Realm Query Language predicate, at
    /// the same version (see ``FrozenResults/filter(_:_:)``).
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> FrozenProjectedResults<Element> {
        FrozenProjectedResults(objects.refined { $0.filter(predicateFormat, argumentArray: arguments) })
    }

    /// The frozen projections sorted by a property of the root class, at the same version.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> FrozenProjectedResults<Element> {
        FrozenProjectedResults(objects.sorted(byKeyPath: keyPath, ascending: ascending))
    }

    /// The frozen projections sorted by several properties of the root class.
    public func sorted<S: Sequence>(by descriptors: S) -> FrozenProjectedResults<Element> where S.Element == SortDescriptor {
        FrozenProjectedResults(objects.sorted(by: descriptors))
    }

    /// The same query, live, in `realm`: Realm Swift's `thaw()` with the handle given.
    public func thaw(in realm: Realm) -> ProjectedResults<Element> {
        ProjectedResults(objects.thaw(in: realm))
    }

    /// The same query, live, in a handle opened on the caller's isolation with the
    /// configuration the results were frozen from: Realm Swift's `thaw()`.
    ///
    /// - Throws: a ``Realm/Error`` if the realm cannot be opened.
    public func thaw(isolation: isolated (any Actor)? = #isolation) async throws -> ProjectedResults<Element> {
        ProjectedResults(try await objects.thaw(isolation: isolation))
    }
}

extension ProjectedResults {
    /// A `Sendable` snapshot of the projections at the realm's current version. Traps inside a
    /// write transaction.
    public func freeze() -> FrozenProjectedResults<Element> {
        FrozenProjectedResults(objects.freeze())
    }
}
