internal import RealmRuntime

/// A type that can be the key of a ``Map``: `String`, as in Realm.
public protocol _MapKey: Hashable, Comparable {
    /// The key as stored.
    var _rlmKey: String { get }
    /// The key from its stored form.
    init(_rlmKey: String)
}

extension String: _MapKey {
    /// The string itself.
    public var _rlmKey: String { self }
    /// The string itself.
    public init(_rlmKey: String) { self = _rlmKey }
}

/// A dictionary property with string keys: Realm Swift's `Map`.
///
/// ```swift
/// class Player: Object {
///     @Persisted var scores: Map<String, Int>
///     @Persisted var pets: Map<String, Dog?>
/// }
/// try realm.write { player.scores["level 1"] = 100 }
/// player.scores["level 1"]  // Optional(100)
/// ```
///
/// Setting a key to `nil` removes it (use ``updateValue(_:forKey:)`` to store a nil value in a map
/// of optionals). Object values are optional; when a linked object is deleted its key stays,
/// with a nil value. Managed maps are live and iterate in key order.
/// Cost: `count` O(1), a lookup O(log n) by binary search, a change rewrites the stored map, O(n).
public final class Map<Key: _MapKey, Value: RealmCollectionValue>: Sequence, CustomStringConvertible,
    RealmCollectionContent {
    private var unmanaged: [Key: Value] = [:]
    private let location: CollectionLocation?

    /// An empty, unmanaged map.
    public init() { location = nil }

    init(location: CollectionLocation) { self.location = location }

    /// Where a managed map lives (nil while unmanaged).
    var managedLocation: CollectionLocation? { location }

    /// The realm of the object owning the map, or nil while unmanaged.
    public var realm: Realm? { location?.realm }

    /// Whether the owning object was deleted (or its realm invalidated).
    public var isInvalidated: Bool { location.map { !$0.isValid } ?? false }

    /// Whether the collection belongs to a frozen realm (it never changes); false while unmanaged.
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// The number of entries.
    public var count: Int { location.map { $0.storedCount / 2 } ?? unmanaged.count }

    /// Whether the map has no entries.
    public var isEmpty: Bool { count == 0 }

    /// The keys, in order.
    public var keys: [Key] { entries().map(\.key) }

    /// The values, in key order.
    public var values: [Value] { entries().map(\.value) }

    /// The value for `key` (nil if absent); setting `nil` removes the key.
    public subscript(key: Key) -> Value? {
        get {
            guard let location else { return unmanaged[key] }
            guard let index = storedIndex(of: key._rlmKey, in: location) else { return nil }
            return location.element(Value.self, at: 2 * index + 1, key: key._rlmKey)
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// Sets the value for `key` (adding the key if needed).
    public func updateValue(_ value: Value, forKey key: Key) {
        guard let location else { unmanaged[key] = value; return }
        guard let stored = location.storedElement(value._rlmValue) else { return }
        location.modify { elements in
            var entries = PackedCollection.entries(elements)
            entries.append((key._rlmKey, stored))
            elements = PackedCollection.mapElements(entries)
        }
    }

    /// Removes `key` and its value.
    public func removeObject(for key: Key) {
        guard let location else { unmanaged[key] = nil; return }
        guard let index = storedIndex(of: key._rlmKey, in: location) else { return }
        location.modify { $0.removeSubrange((2 * index)...(2 * index + 1)) }
    }

    /// Removes every entry.
    public func removeAll() {
        guard let location else { return unmanaged.removeAll() }
        location.modify { $0.removeAll() }
    }

    /// The entries, in key order.
    public func makeIterator() -> IndexingIterator<[(key: Key, value: Value)]> {
        entries().makeIterator()
    }

    /// `Map<String, Value> [key: value, …]`.
    public var description: String {
        "Map<\(Key.self), \(Value.self)> [" + entries().map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
    }

    private func entries() -> [(key: Key, value: Value)] {
        guard let location else { return unmanaged.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
        return (0..<(location.storedCount / 2)).map { index in
            let key = location.stored(2 * index)
            guard case .bytes(let bytes) = key else { return (Key(_rlmKey: ""), location.element(Value.self, at: 2 * index + 1)) }
            let name = String(decoding: bytes, as: UTF8.self)
            return (Key(_rlmKey: name), location.element(Value.self, at: 2 * index + 1, key: name))
        }
    }

    /// The entry index of `key` in a managed map (keys are stored sorted by UTF-8 bytes).
    private func storedIndex(of key: String, in location: CollectionLocation) -> Int? {
        let target = Array(key.utf8)
        var low = 0
        var high = location.storedCount / 2
        while low < high {
            let middle = (low + high) / 2
            guard case .bytes(let bytes) = location.stored(2 * middle) else { return nil }
            if bytes == target { return middle }
            if bytes.lexicographicallyPrecedes(target) { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    var _rlmContent: _RealmValue { _RealmValue(.entries(entries().map { ($0.key._rlmKey, $0.value._rlmValue) })) }
}

extension Map: _Persistable {
    /// An empty map.
    public static var _rlmDefaultValue: Map<Key, Value> { Map() }
    /// A map of the value type.
    public static var _rlmType: _RealmPropertyType {
        var type = Value._rlmType
        type.collection = .map
        return type
    }
    /// A live map of the managed object's property.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Map<Key, Value> {
        Map(location: CollectionLocation(owner: object, column: column))
    }
    /// The map, read when stored.
    public var _rlmValue: _RealmValue { _RealmValue(.collection(self)) }
    /// A map given as entries, or this type of map itself.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Map<Key, Value>? {
        switch stored.storage {
        case .collection(let map as Map<Key, Value>): return map
        case .entries(let entries):
            let map = Map()
            for (key, value) in entries {
                guard let element = Value._rlmFromValue(value) else { return nil }
                map.unmanaged[Key(_rlmKey: key)] = element
            }
            return map
        default: return nil
        }
    }
}
