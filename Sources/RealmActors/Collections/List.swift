public import Foundation
internal import RealmRuntime

/// An ordered collection property: Realm Swift's `List`.
///
/// ```swift
/// class Person: Object {
///     @Persisted var dogs: List<Dog>
///     @Persisted var nicknames: List<String>
/// }
/// try realm.write {
///     person.dogs.append(rex)
///     person.nicknames.append(contentsOf: ["Al", "Bert"])
/// }
/// ```
///
/// Elements keep their order and may repeat. Unmanaged, a list is a plain array. Managed, it is
/// live: it reads the owner's property at the realm's current version, and changes (in a write
/// transaction) are stored at once. Appending an unmanaged object adds it to the realm.
///
/// Cost: `count` and `list[i]` are O(1); a change rewrites the stored list, O(n).
public final class List<Element: RealmCollectionValue>: RandomAccessCollection, MutableCollection,
    CustomStringConvertible {
    private var unmanaged: [Element] = []
    private let location: CollectionLocation?

    /// An empty, unmanaged list.
    public init() { location = nil }

    init(location: CollectionLocation) { self.location = location }

    /// Where a managed list lives (nil while unmanaged).
    var managedLocation: CollectionLocation? { location }

    /// The realm of the object owning the list, or nil while unmanaged.
    public var realm: Realm? { location?.realm }

    /// Whether the owning object was deleted (or its realm invalidated).
    public var isInvalidated: Bool { location.map { !$0.isValid } ?? false }

    /// Whether the collection belongs to a frozen realm (it never changes); false while unmanaged.
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    // MARK: Reading

    /// The number of elements.
    public var count: Int { location?.storedCount ?? unmanaged.count }
    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The element at `position`; setting replaces it (in a write transaction, if managed).
    public subscript(position: Int) -> Element {
        get {
            guard let location else { return unmanaged[position] }
            precondition(position >= 0 && position < location.storedCount, "Index \(position) is out of bounds")
            return location.element(Element.self, at: position)
        }
        set { replace(index: position, object: newValue) }
    }

    /// The position of the first element equal to `object`, or nil.
    public func index(of object: Element) -> Int? {
        let value = object._rlmValue
        return indices.first { self[$0]._rlmValue.isSameElement(as: value) }
    }

    // MARK: Changing

    /// Appends an element.
    public func append(_ object: Element) {
        insert(object, at: count)
    }

    /// Appends every element of a sequence (one rewrite of the stored list). Realm Swift's
    /// spelling; ``append(contentsOf:)`` is the standard library's.
    public func append<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        append(contentsOf: objects)
    }

    /// Appends every element of a sequence (one rewrite of the stored list).
    public func append<S: Sequence>(contentsOf objects: S) where S.Element == Element {
        insert(contentsOf: Array(objects), at: count)
    }

    /// Inserts the elements of a collection at `index` (0...count), in order (one rewrite of the
    /// stored list).
    public func insert<C: Collection>(contentsOf objects: C, at index: Int) where C.Element == Element {
        replaceSubrange(index..<index, with: objects)
    }

    /// Inserts an element at `index` (0...count).
    public func insert(_ object: Element, at index: Int) {
        guard let location else { return unmanaged.insert(object, at: index) }
        precondition(index >= 0 && index <= location.storedCount, "Index \(index) is out of bounds")
        guard let stored = location.storedElement(object._rlmValue) else { return }
        location.modify { $0.insert(stored, at: index) }
    }

    /// Removes the element at `index`.
    public func remove(at index: Int) {
        guard let location else { unmanaged.remove(at: index); return }
        precondition(index >= 0 && index < location.storedCount, "Index \(index) is out of bounds")
        location.modify { _ = $0.remove(at: index) }
    }

    /// Removes the first `number` elements (traps if the list has fewer). The objects stay in
    /// the realm.
    public func removeFirst(_ number: Int = 1) {
        precondition(number >= 0, "Cannot remove a negative number (\(number)) of elements")
        precondition(number <= count, "It is not possible to remove more objects (\(number)) from a list than it already contains (\(count)).")
        replaceSubrange(0..<number, with: [])
    }

    /// Removes the last `number` elements (traps if the list has fewer). The objects stay in the
    /// realm.
    public func removeLast(_ number: Int = 1) {
        precondition(number >= 0, "Cannot remove a negative number (\(number)) of elements")
        precondition(number <= count, "It is not possible to remove more objects (\(number)) from a list than it already contains (\(count)).")
        replaceSubrange(count - number..<count, with: [])
    }

    /// Removes the elements in a range of positions.
    public func removeSubrange<R: RangeExpression>(_ bounds: R) where R.Bound == Int {
        replaceSubrange(bounds, with: [])
    }

    /// Replaces the elements in a range of positions with those of a collection (one rewrite of
    /// the stored list).
    public func replaceSubrange<C: Collection, R: RangeExpression>(_ bounds: R, with objects: C)
        where C.Element == Element, R.Bound == Int {
        let range = bounds.relative(to: 0..<count)
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "Range \(range) is out of bounds")
        guard let location else { return unmanaged.replaceSubrange(range, with: objects) }
        let stored = objects.compactMap { location.storedElement($0._rlmValue) }
        location.modify { $0.replaceSubrange(range, with: stored) }
    }

    /// Removes the elements at a set of positions (as SwiftUI's `onDelete` hands them over).
    public func remove(atOffsets offsets: IndexSet) {
        precondition(offsets.allSatisfy { $0 >= 0 && $0 < count }, "Offsets \(Array(offsets)) are out of bounds")
        guard let location else {
            for offset in offsets.reversed() { unmanaged.remove(at: offset) }
            return
        }
        location.modify { elements in
            for offset in offsets.reversed() { elements.remove(at: offset) }
        }
    }

    /// Moves the elements at a set of positions to before position `destination` of the list as
    /// it was, keeping their order (as SwiftUI's `onMove` hands them over).
    public func move(fromOffsets offsets: IndexSet, toOffset destination: Int) {
        precondition(offsets.allSatisfy { $0 >= 0 && $0 < count } && destination >= 0 && destination <= count,
                     "Offsets \(Array(offsets)) or destination \(destination) out of bounds")
        func moved<T>(_ elements: [T]) -> [T] {
            let moving = offsets.map { elements[$0] }
            var rest = elements
            for offset in offsets.reversed() { rest.remove(at: offset) }
            let insertion = destination - offsets.count(in: 0..<destination)
            rest.insert(contentsOf: moving, at: insertion)
            return rest
        }
        guard let location else { return unmanaged = moved(unmanaged) }
        location.modify { $0 = moved($0) }
    }

    /// Removes every element.
    public func removeAll() {
        guard let location else { return unmanaged.removeAll() }
        location.modify { $0.removeAll() }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) {
        guard let location else { unmanaged[index] = object; return }
        precondition(index >= 0 && index < location.storedCount, "Index \(index) is out of bounds")
        guard let stored = location.storedElement(object._rlmValue) else { return }
        location.modify { $0[index] = stored }
    }

    /// Moves the element at `from` to position `to`, shifting the ones between.
    public func move(from: Int, to: Int) {
        guard let location else {
            let element = unmanaged.remove(at: from)
            unmanaged.insert(element, at: to)
            return
        }
        precondition(from >= 0 && from < location.storedCount && to >= 0 && to < location.storedCount,
                     "Index out of bounds in move(from: \(from), to: \(to))")
        location.modify { $0.insert($0.remove(at: from), at: to) }
    }

    /// Exchanges the elements at two positions.
    public func swapAt(_ first: Int, _ second: Int) {
        guard let location else { return unmanaged.swapAt(first, second) }
        precondition(first >= 0 && first < location.storedCount && second >= 0 && second < location.storedCount,
                     "Index out of bounds in swapAt(\(first), \(second))")
        location.modify { $0.swapAt(first, second) }
    }

    /// `List<Element> [a, b, c]`.
    public var description: String {
        "List<\(Element.self)> [" + map { "\($0)" }.joined(separator: ", ") + "]"
    }
}

extension List: _Persistable, ElementCollection {
    static var collectionKind: CollectionKind { .list }

    func appendUnmanaged(_ element: Element) { unmanaged.append(element) }
}
