internal import RealmRuntime

/// A `List`, `MutableSet` or `Map` offers its content when it is stored into a realm (assigned to
/// a property, or added with its unmanaged owner).
protocol RealmCollectionContent: AnyObject {
    /// `.elements` (list, set) or `.entries` (map), as values to store.
    var _rlmContent: _RealmValue { get }
}

/// Where a managed collection lives: a column of an object, or a list or dictionary nested in a
/// mixed value of that column (`nested`). Reads go to the packed value in the object's row at the
/// realm's current version (see ``PackedCollection``): `count` and one element are O(1) with
/// nothing decoded but that element; a change rewrites the packed value. A nested collection is
/// found in place by its path on every access (O(depth × log n)), and a change rewrites the
/// column's whole value.
struct CollectionLocation {
    /// A collection nested in a mixed value: the steps from the column's value to it (see
    /// ``MixedPath``) and whether it is a dictionary.
    struct Nested: Equatable {
        var steps: [MixedPathStep]
        var isMap: Bool

        /// The value of a mixed column itself (its kind is checked when it is read).
        static let root = Nested(steps: [], isMap: false)
    }

    /// The managed object whose property holds the collection (which finds its row).
    let owner: ObjectBase
    let column: Int
    /// nil for the column's own collection.
    var nested: Nested? = nil

    init(owner: ObjectBase, column: Int, nested: Nested? = nil) {
        precondition(owner.managingRealm != nil, "A managed collection needs a managed owner")
        self.owner = owner
        self.column = column
        self.nested = nested
    }

    var realm: Realm { owner.managingRealm! }
    /// The owner's table.
    var ownerTable: Table { owner.managedTable! }
    /// The owner's key.
    var ownerKey: UInt64 { owner.managedKey }
    /// The collection property (for a nested collection, the mixed property holding it).
    var property: PropertyInfo { ownerTable.property(column)! }

    /// Whether the owner still exists at the realm's version (and, for a nested collection,
    /// whether its path still leads to a collection of its kind).
    var isValid: Bool {
        guard let (leaf, row) = owner.location() else { return false }
        guard let nested else { return true }
        return realm.withBytes(leaf.storedBytes(row, column)) {
            MixedPath.nestedBytes(in: $0, collection: property.collection, path: nested.steps, isMap: nested.isMap) != nil
        }
    }

    /// This location with the kind of the collection at its path set.
    func nested(isMap: Bool) -> CollectionLocation {
        var location = self
        location.nested = Nested(steps: nested?.steps ?? [], isMap: isMap)
        return location
    }

    /// The location of the collection held by the element at `step` of this collection.
    func child(_ step: MixedPathStep) -> CollectionLocation {
        var location = self
        location.nested = Nested(steps: (nested?.steps ?? []) + [step], isMap: false)
        return location
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard let (leaf, row) = owner.location() else {
            fatalError("Collection is no longer valid: its object has been deleted or invalidated.")
        }
        guard let nested else { return realm.withBytes(leaf.storedBytes(row, column), body) }
        return realm.withBytes(leaf.storedBytes(row, column)) { columnBytes in
            guard let packed = MixedPath.nestedBytes(in: columnBytes, collection: property.collection,
                                                     path: nested.steps, isMap: nested.isMap) else {
                fatalError("Collection is no longer valid: the value holding it in '\(property.name)' was replaced or removed.")
            }
            return body(packed)
        }
    }

    /// The number of stored elements (for a map, twice its entries).
    var storedCount: Int { withBytes { PackedCollection.count($0) } }

    func stored(_ index: Int) -> ColumnValue { withBytes { PackedCollection.element(index, of: $0) } }

    func allStored() -> [ColumnValue] { withBytes { PackedCollection.decode($0) } }

    /// The element at `index` (for a map, the value of `key` at `index`) as the Swift type `E`;
    /// a collection in a mixed element is live at its path.
    func element<E: _Persistable>(_ type: E.Type, at index: Int, key: String? = nil) -> E {
        let stored = stored(index)
        if E.self == AnyRealmValue.self, MixedValue.isCollection(stored),
           let value = realm.anyRealmValue(stored, at: child(key.map { .key($0) } ?? .index(index))) as? E {
            return value
        }
        return realm.element(E.self, stored, property: property.element)
    }

    /// A value in stored form, adding an unmanaged object first; nil (after recording the error
    /// for the transaction's commit, as `add` does) if it cannot be stored.
    func storedElement(_ value: _RealmValue) -> ColumnValue? {
        _ = realm.requireWrite()
        do {
            if property.collection == .set, case .mixed(let mixed) = value.storage, mixed.isCollection {
                throw Realm.Error(.invalidInput, "A set of AnyRealmValue cannot hold a list or a dictionary ('\(property.name)')")
            }
            return try realm.storedElement(value, for: property.element, update: .error)
        } catch {
            realm.recordDeferredError(error)
            return nil
        }
    }

    /// Rewrites the stored elements. Must be in a write transaction.
    func replaceStored(_ elements: [ColumnValue]) {
        guard let nested else {
            return realm.setStored(.bytes(PackedCollection.encode(elements)), column: column, of: owner)
        }
        guard owner.location() != nil, let value = MixedPath.replacing(
            in: realm.value(of: owner, column: column), collection: property.collection, path: nested.steps, with: elements)
        else { fatalError("Collection is no longer valid: the value holding it in '\(property.name)' was replaced or removed.") }
        realm.setStored(value, column: column, of: owner)
    }

    /// Applies `change` to the stored elements.
    func modify(_ change: (inout [ColumnValue]) -> Void) {
        _ = realm.requireWrite()
        var elements = allStored()
        change(&elements)
        replaceStored(elements)
    }
}
