/// A list or set of objects seen as the values of one key path of each object: the type of a
/// ``Projected`` property declared with `projectTo` (Realm Swift's `ProjectedCollection`).
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.friends.projectTo.firstName) var friendsNames: ProjectedCollection<String>
/// }
/// projection.friendsNames.count    // person.friends.count
/// projection.friendsNames[0]       // person.friends[0].firstName
/// try realm.write { projection.friendsNames[0] = "Bob" }  // sets person.friends[0].firstName
/// ```
///
/// It holds no values: it reads (and writes) the backing collection at the moment of the call,
/// so it is as live as the collection. You don't create one yourself; `projectTo` does.
/// Cost: `count` is the collection's; an element reads one object's key path.
public struct ProjectedCollection<Element>: RandomAccessCollection, CustomStringConvertible {
    /// A position in the collection.
    public typealias Index = Int

    private let source: ProjectionSource
    private let read: (ObjectBase) -> Element
    private let write: (ObjectBase, Element) -> Void

    init<Object: ObjectBase>(_ source: ProjectionSource, keyPath: KeyPath<Object, Element>) {
        self.source = source
        read = { ($0 as! Object)[keyPath: keyPath] }
        write = { object, value in
            guard let writable = keyPath as? ReferenceWritableKeyPath<Object, Element> else {
                preconditionFailure("The key path \(keyPath) of a projected collection is not writable")
            }
            (object as! Object)[keyPath: writable] = value
        }
    }

    /// The first position, 0.
    public var startIndex: Int { 0 }

    /// The number of elements: the backing collection's count.
    public var endIndex: Int { source.count() }

    /// The key path's value on the object at `position`; setting it writes that object's
    /// property (in a write transaction, if the object is managed).
    public subscript(position: Int) -> Element {
        get { read(source.object(position)) }
        nonmutating set { write(source.object(position), newValue) }
    }

    /// The realm of the backing collection, or nil while it is unmanaged.
    public var realm: Realm? { source.realm() }

    /// Whether the backing collection's owner was deleted, or its realm invalidated.
    public var isInvalidated: Bool { source.isInvalidated() }

    /// Whether the backing collection belongs to a frozen realm.
    public var isFrozen: Bool { source.realm()?.isFrozen ?? false }

    /// The elements, one a line, as Realm Swift prints a projected collection.
    public var description: String {
        "ProjectedCollection<\(Element.self)> {\n" + enumerated().map { "\t[\($0.offset)] \($0.element)\n" }.joined() + "}"
    }
}

extension ProjectedCollection where Element: Equatable {
    /// The position of the first element equal to `element`, or nil.
    public func index(of element: Element) -> Int? {
        firstIndex(of: element)
    }
}

/// The objects of a `List` or `MutableSet`, read at each call.
struct ProjectionSource {
    let count: () -> Int
    let object: (Int) -> ObjectBase
    let realm: () -> Realm?
    let isInvalidated: () -> Bool
}

/// Turns a collection of objects into a ``ProjectedCollection`` of one of their key paths: what
/// `projectTo` returns (Realm Swift's `CollectionElementMapper`).
///
/// ```swift
/// @Projected(\Person.dogs.projectTo.name) var dogNames: ProjectedCollection<String>
/// ```
@dynamicMemberLookup
public struct CollectionElementMapper<Element: ObjectBase> {
    let source: ProjectionSource

    /// The collection's objects seen through `member`.
    public subscript<V>(dynamicMember member: KeyPath<Element, V>) -> ProjectedCollection<V> {
        ProjectedCollection(source, keyPath: member)
    }
}

extension List where Element: ObjectBase {
    /// The list projected to a key path of its objects, for a ``Projected`` property:
    /// `\Person.dogs.projectTo.name` is a ``ProjectedCollection`` of the dogs' names.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: ProjectionSource(
            count: { self.count }, object: { self[$0] }, realm: { self.realm }, isInvalidated: { self.isInvalidated }))
    }
}

extension MutableSet where Element: ObjectBase {
    /// The set projected to a key path of its objects, for a ``Projected`` property:
    /// `\Person.pets.projectTo.name` is a ``ProjectedCollection`` of the pets' names, in the
    /// set's order.
    public var projectTo: CollectionElementMapper<Element> {
        CollectionElementMapper(source: ProjectionSource(
            count: { self.count }, object: { self[$0] }, realm: { self.realm }, isInvalidated: { self.isInvalidated }))
    }
}
