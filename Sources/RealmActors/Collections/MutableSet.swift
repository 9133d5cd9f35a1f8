internal import RealmRuntime

/// An unordered collection property of distinct elements: Realm Swift's `MutableSet`.
///
/// ```swift
/// class Post: Object {
///     @Persisted var tags: MutableSet<String>
/// }
/// try realm.write { post.tags.insert("swift") }
/// post.tags.contains("swift")  // true
/// ```
///
/// Inserting an element already present does nothing. Managed sets are live and keep their
/// elements in a canonical order (by value; objects by key), which is the iteration order.
/// Cost: `count` O(1), `contains` O(n), a change rewrites the stored set, O(n log n).
public final class MutableSet<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    private var unmanaged: [Element] = []
    private let location: CollectionLocation?

    /// An empty, unmanaged set.
    public init() { location = nil }

    init(location: CollectionLocation) { self.location = location }

    /// The realm of the object owning the set, or nil while unmanaged.
    public var realm: Realm? { location?.realm }

    /// Where a managed set lives (nil while unmanaged).
    var managedLocation: CollectionLocation? { location }

    /// Whether the owning object was deleted (or its realm invalidated).
    public var isInvalidated: Bool { location.map { !$0.isValid } ?? false }

    /// Whether the collection belongs to a frozen realm (it never changes); false while unmanaged.
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// The number of elements.
    public var count: Int { location?.storedCount ?? unmanaged.count }
    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The element at `position` in the set's iteration order.
    public subscript(position: Int) -> Element {
        guard let location else { return unmanaged[position] }
        precondition(position >= 0 && position < location.storedCount, "Index \(position) is out of bounds")
        return location.element(Element.self, at: position)
    }

    /// Whether the set holds `object`.
    public func contains(_ object: Element) -> Bool {
        let value = object._rlmValue
        return contains { $0._rlmValue.isSameElement(as: value) }
    }

    /// Inserts an element if it is not already present.
    public func insert(_ object: Element) {
        insert(contentsOf: [object])
    }

    /// Inserts every element of a sequence (one rewrite of the stored set). Realm Swift's
    /// spelling; ``insert(contentsOf:)`` is kept beside it.
    public func insert<S: Sequence>(objectsIn objects: S) where S.Element == Element {
        insert(contentsOf: objects)
    }

    /// Inserts each element of a sequence that is not already present.
    public func insert<S: Sequence>(contentsOf objects: S) where S.Element == Element {
        guard let location else {
            for object in objects where !contains(object) { unmanaged.append(object) }
            return
        }
        let stored = objects.compactMap { location.storedElement($0._rlmValue) }
        location.modify { $0 = PackedCollection.setElements($0 + stored) }
    }

    /// Removes `object` if present.
    public func remove(_ object: Element) {
        let value = object._rlmValue
        guard let location else {
            unmanaged.removeAll { $0._rlmValue.isSameElement(as: value) }
            return
        }
        guard let index = indices.first(where: { self[$0]._rlmValue.isSameElement(as: value) }) else { return }
        location.modify { _ = $0.remove(at: index) }
    }

    /// Removes every element.
    public func removeAll() {
        guard let location else { return unmanaged.removeAll() }
        location.modify { $0.removeAll() }
    }

    /// Inserts every element of `other`.
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element {
        insert(contentsOf: other)
    }

    /// Keeps only the elements also in `other`.
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        let keep = Array(other).map(\._rlmValue)
        for element in Array(self) where !keep.contains(where: { $0.isSameElement(as: element._rlmValue) }) {
            remove(element)
        }
    }

    /// Removes every element of `other`.
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for element in other { remove(element) }
    }

    /// Whether every element of the set is in `other`.
    public func isSubset(of other: MutableSet<Element>) -> Bool {
        allSatisfy { other.contains($0) }
    }

    /// Whether the set shares an element with `other`.
    public func intersects(_ other: MutableSet<Element>) -> Bool {
        contains { other.contains($0) }
    }

    /// `MutableSet<Element> [a, b]`.
    public var description: String {
        "MutableSet<\(Element.self)> [" + map { "\($0)" }.joined(separator: ", ") + "]"
    }
}

extension MutableSet: _Persistable, ElementCollection {
    static var collectionKind: CollectionKind { .set }

    /// Inserts it, as ``insert(_:)`` does: a repeated element is kept once.
    func appendUnmanaged(_ element: Element) { insert(element) }
}
