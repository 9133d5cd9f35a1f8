import Foundation
internal import RealmRuntime

// Reading and writing the stored values of managed objects at the handle's version (its write
// transaction's, if one is open). A read cannot throw: damage found here traps, naming the file.
extension Realm {
    /// The root of a table's tree at this handle's version.
    func root(of tree: TreeID) -> TreeRoot {
        do {
            if let writer { return try writer.root(of: tree) }
            return try reader.root(of: tree)
        } catch {
            fileIsDamaged(error, in: tree)
        }
    }

    /// Where an object is now, or nil if it does not exist (deleted, or its table was created
    /// by a transaction that was rolled back).
    func locate(_ table: Table, _ key: UInt64) -> (ClusterLeaf, Int)? {
        guard isCurrent(table) else { return nil }
        do {
            if let writer { return try writer.row(in: writer.root(of: table.tree), key: key) }
            return try reader.row(in: reader.root(of: table.tree), key: key)
        } catch {
            fileIsDamaged(error, in: table.tree)
        }
    }

    func withBytes<R>(_ stored: ClusterLeaf.StoredBytes, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        do {
            if let writer { return body(try writer.bytes(of: stored)) }
            return body(try reader.bytes(of: stored))
        } catch {
            fileIsDamaged(error)
        }
    }

    /// A property's stored value (for dynamic access; copies).
    func value(of object: ObjectBase, column: Int) -> ColumnValue {
        let (leaf, row) = object.managedLocation()
        let spec = object.managedTable!.layout[column]
        do {
            if let writer { return try writer.value(leaf, row: row, column: column, spec: spec) }
            return try reader.value(leaf, row: row, column: column, spec: spec)
        } catch {
            fileIsDamaged(error, in: object.managedTable!.tree)
        }
    }

    /// Writes one property of a managed object (adding the unmanaged objects a link or
    /// collection value refers to).
    ///
    /// A value Realm rejects as bad data (over 16 MB, a linked object with a duplicate primary
    /// key) leaves the property unchanged and fails the transaction's commit, like `add`.
    func set(_ value: _RealmValue, column: Int, of object: ObjectBase) {
        _ = requireWrite()
        let table = object.managedTable!
        if column == table.primaryKeyColumn {
            fatalError("Primary key can't be changed after an object is inserted.")
        }
        if case .stored(let scalar) = value.storage, table.storesOnlyInRow[column] {
            return setStored(scalar, column: column, of: object)
        }
        guard let property = table.property(column) else { fatalError("Property is not in the realm's schema") }
        if case .stored(let scalar) = value.storage, !property.canLink, property.collection == nil {
            return setStored(scalar, column: column, of: object)
        }
        do {
            setStored(try storedValue(value, for: property), column: column, of: object)
        } catch {
            recordDeferredError(error)
        }
    }

    /// Writes a property's stored value.
    func setStored(_ value: ColumnValue, column: Int, of object: ObjectBase) {
        let write = requireWrite()
        guard let position = object.location() else { fatalError("Object has been deleted or invalidated.") }
        let moves = write.positionChanges
        do {
            try write.setValue(value, column: column, of: object.managedKey, in: object.managedTable!, catalog: catalog,
                               at: position)
        } catch let error as StorageError where error.code == .invalidInput {
            recordDeferredError(error)
        } catch {
            fileIsDamaged(error)
        }
        if write.positionChanges == moves {
            stamp &+= 1  // written in place: every position found before still holds
        } else {
            touch()
        }
    }

    /// A property of a managed object as dynamic access returns it.
    func swiftValue(of object: ObjectBase, column: Int, property: PropertyInfo) -> Any? {
        let stored = value(of: object, column: column)
        guard let collection = property.collection else {
            let location = CollectionLocation(owner: object, column: column, nested: .root)
            return ObjectValues.swiftValue(realmValue(stored, element: property, type: nil, location: location), property)
        }
        let elements = CollectionLocation(owner: object, column: column).allStored()
        let element = property.element
        let content: _RealmValue = collection == .map
            ? _RealmValue(.entries(PackedCollection.entries(elements).map { ($0.key, realmValue($0.value, element: element, type: nil)) }))
            : _RealmValue(.elements(elements.map { realmValue($0, element: element, type: nil) }))
        return ObjectValues.swiftValue(content, property)
    }
}
