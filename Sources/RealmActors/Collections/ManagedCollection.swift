internal import RealmRuntime

/// A `List`, `MutableSet` or `Map` offers its content when it is stored into a realm (assigned to
/// a property, or added with its unmanaged owner).
protocol RealmCollectionContent: AnyObject {
    /// `.elements` (list, set) or `.entries` (map), as values to store.
    var _rlmContent: _RealmValue { get }
}

/// Where a managed collection lives: a column of an object. Reads go to the packed value in the
/// object's row at the realm's current version (see ``PackedCollection``): `count` and one
/// element are O(1) with nothing decoded but that element; a change rewrites the packed value.
struct CollectionLocation {
    let owner: ObjectState
    let column: Int

    var realm: Realm { owner.realm }
    /// The collection property.
    var property: PropertyInfo { owner.table.property(column)! }

    /// Whether the owner still exists at the realm's version.
    var isValid: Bool { owner.location() != nil }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard let (leaf, row) = owner.location() else {
            fatalError("Collection is no longer valid: its object has been deleted or invalidated.")
        }
        return realm.withBytes(leaf.storedBytes(row, column), body)
    }

    /// The number of stored elements (for a map, twice its entries).
    var storedCount: Int { withBytes { PackedCollection.count($0) } }

    func stored(_ index: Int) -> ColumnValue { withBytes { PackedCollection.element(index, of: $0) } }

    func allStored() -> [ColumnValue] { withBytes { PackedCollection.decode($0) } }

    /// The element at `index` as the Swift type `E`.
    func element<E: _Persistable>(_ type: E.Type, at index: Int) -> E {
        realm.element(E.self, stored(index), property: property.element)
    }

    /// A value in stored form, adding an unmanaged object first; nil (after recording the error
    /// for the transaction's commit, as `add` does) if it cannot be stored.
    func storedElement(_ value: _RealmValue) -> ColumnValue? {
        _ = realm.requireWrite()
        do {
            return try realm.storedElement(value, for: property.element, update: .error)
        } catch {
            realm.recordDeferredError(error)
            return nil
        }
    }

    /// Rewrites the stored elements. Must be in a write transaction.
    func replaceStored(_ elements: [ColumnValue]) {
        realm.setStored(.bytes(PackedCollection.encode(elements)), column: column, of: owner)
    }

    /// Applies `change` to the stored elements.
    func modify(_ change: (inout [ColumnValue]) -> Void) {
        _ = realm.requireWrite()
        var elements = allStored()
        change(&elements)
        replaceStored(elements)
    }
}
