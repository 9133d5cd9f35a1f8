import Foundation
internal import RealmRuntime

/// A value to store into one column of an object.
typealias ColumnAssignment = (column: Int, value: _RealmValue)

extension Realm {
    // MARK: Adding

    /// Adds an unmanaged object to the realm; the same instance becomes managed and live.
    ///
    /// Adding an object this realm already manages does nothing. With `update` `.all` or
    /// `.modified`, an existing object with the same primary key is updated instead and the
    /// instance then manages it. Must be called in a write transaction.
    ///
    /// Failures that Realm reports for bad data — a primary key that is taken with
    /// ``UpdatePolicy/error``, a value over 16 MB, an update policy on a class without a primary
    /// key — do not stop the program: the transaction's ``commitWrite()`` (or ``write(_:)``)
    /// throws the first such error and writes nothing. As with ``cancelWrite()``, objects the
    /// transaction made managed are then invalidated (an object whose own row failed stays
    /// unmanaged); add new instances to retry.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        _ = requireWrite()
        if let state = object.realmState {
            precondition(state.realm.file === file,
                         "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
            precondition(object.location() != nil, "Adding a deleted or invalidated object to a Realm is not permitted")
            return
        }
        do {
            let table = try tableCreatingIfNeeded(for: type(of: object))
            try insertOrUpdate(object, in: table, update: update)
        } catch {
            recordDeferredError(error)
        }
    }

    /// Adds every object of a sequence (see ``add(_:update:)-(Object,_)``).
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: Object {
        for object in objects { add(object, update: update) }
    }

    /// Creates a managed object from a dictionary (`["name": "Rex"]`, any order), an array
    /// (values in declaration order) or another object, and returns it.
    ///
    /// Properties the value does not mention take their declared initial values. With `update`,
    /// an existing object with the same primary key is updated: `.all` and `.modified` touch only
    /// the properties the value mentions (a partial update). Errors are reported like
    /// ``add(_:update:)-(Object,_)``'s.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        _ = requireWrite()
        let object = T()
        do {
            try create(object, values: ObjectValues.values(for: T.self, from: value), in: tableCreatingIfNeeded(for: T.self), update: update)
        } catch {
            recordDeferredError(error)
        }
        return object
    }

    /// Stores `object` (new, unmanaged) with the given values into `table`, or, with an update
    /// policy and an existing primary key, makes it the existing object with those values.
    func create(_ object: ObjectBase, values given: [String: _RealmValue], in table: Table, update: UpdatePolicy) throws {
        object.dynamicValues = given
        if update != .error, let column = table.primaryKeyColumn, let name = table.property(column)?.name,
           let keyValue = given[name], let existing = try existingKey(keyValue.value, in: table) {
            manage(object, table: table, key: existing)
            try storeValues(assignments(given, in: table), of: existing, in: table, update: update, skipping: column)
            return
        }
        _ = try insertOrUpdate(object, in: table, update: update)
    }

    /// Stores an unmanaged object and makes it managed; returns its key.
    ///
    /// Two steps, so that objects linking to each other (even in a cycle) can be added: the row
    /// is inserted (or, with an update policy, found) with its scalar properties, and the object
    /// becomes managed; then its links and collections are stored, adding the unmanaged objects
    /// they refer to, which find this one already managed.
    @discardableResult
    func insertOrUpdate(_ object: ObjectBase, in table: Table, update: UpdatePolicy) throws -> UInt64 {
        if !table.hasLinksOrCollections {
            // Scalars only (a bulk insert's common case): when the wrappers hold every value, the
            // row straight from them, and nothing to store after it.
            var row = table.defaultRow
            if forEachWrapperValue(of: object, in: table, { column, value in row[column] = value.value }) {
                let key = try store(row, in: table, update: update)
                manage(object, table: table, key: key)
                return key
            }
        }
        let values = unmanagedValues(of: object, in: table)
        let key = try store(physicalValues(values, table), in: table, update: update)
        manage(object, table: table, key: key)
        guard table.hasLinksOrCollections else { return key }
        let later = values.filter { Self.isStoredLater($0.column, table) }
        if !later.isEmpty {
            try storeValues(later, of: key, in: table, update: update, skipping: table.primaryKeyColumn)
        }
        return key
    }

    /// Whether a column is written after its object is managed: links, collections and
    /// `AnyRealmValue`s, whose values may need other objects added first.
    private static func isStoredLater(_ column: Int, _ table: Table) -> Bool {
        guard let property = table.property(column) else { return false }
        return property.canLink || property.collection != nil
    }

    /// Writes values into an existing object (with `.modified`, only those that differ), adding
    /// linked objects as needed.
    private func storeValues(_ values: [ColumnAssignment], of key: UInt64, in table: Table,
                             update: UpdatePolicy, skipping skipped: Int?) throws {
        let write = requireWrite()
        defer { bumpStamp() }
        for (column, value) in values {
            guard column != skipped, let property = table.property(column) else { continue }
            let stored = try storedValue(value, for: property, update: update)
            if update == .modified, self.value(column: column, key: key, in: table) == stored { continue }
            try write.setValue(stored, column: column, of: key, in: table, catalog: catalog)
        }
    }

    /// Turns an unmanaged instance into an accessor of the stored object `key`, once its values
    /// have been read: what the instance held while unmanaged is dropped (its values by name and
    /// its wrappers' own values), so that unmanaged objects linking to each other do not keep
    /// each other alive once managed (see ``PersistedFieldLayout/dropUnmanagedValues(of:)``).
    private func manage(_ object: ObjectBase, table: Table, key: UInt64) {
        object.attach(to: self, table: table, key: key)
        object.dynamicValues = nil
        // Only a value that references an object can close a cycle: a table with no link,
        // collection or mixed value keeps its wrappers' values (freed with the instance), at no
        // cost per insert (dropping every string cost W1 11–17 %).
        if table.hasLinksOrCollections { fieldColumns(of: type(of: object), in: table)?.layout.dropUnmanagedValues(of: object) }
    }

    /// Every physical column's value for a new row; links and collections start empty (see
    /// ``insertOrUpdate(_:in:update:)``), and columns without a value take their default.
    private func physicalValues(_ values: [ColumnAssignment], _ table: Table) -> [ColumnValue] {
        var row = table.defaultRow
        for (column, value) in values where !Self.isStoredLater(column, table) {
            row[column] = value.value
        }
        return row
    }

    /// An unmanaged object's values for the columns of `table` (properties the table lacks are
    /// left out): straight from its wrappers when no value was given by name (the common case:
    /// no dictionary, no name lookup), else ``ObjectSchemaDiscovery/unmanagedValues(of:)``.
    private func unmanagedValues(of object: ObjectBase, in table: Table) -> [ColumnAssignment] {
        var values: [ColumnAssignment] = []
        guard forEachWrapperValue(of: object, in: table, { column, value in values.append((column, value)) }) else {
            return assignments(ObjectSchemaDiscovery.unmanagedValues(of: object), in: table)
        }
        return values
    }

    /// Calls `body` with each column of `table` and the value an unmanaged object's wrapper for
    /// it holds. Returns false, calling nothing, when the wrappers do not hold every value:
    /// values were given by name, or the class's fields could not be laid out.
    private func forEachWrapperValue(of object: ObjectBase, in table: Table, _ body: (Int, _RealmValue) -> Void) -> Bool {
        guard object.dynamicValues == nil, let (layout, columns) = fieldColumns(of: type(of: object), in: table) else {
            return false
        }
        columns.withUnsafeBufferPointer { columns in
            layout.forEachValue(in: object) { index, value in
                if let column = columns[index] { body(column, value) }
            }
        }
        return true
    }

    /// Values by property name as column assignments of `table` (names it lacks are left out).
    func assignments(_ byName: [String: _RealmValue], in table: Table) -> [ColumnAssignment] {
        byName.compactMap { name, value in table.columns[name].map { ($0, value) } }
    }

    /// Inserts a row, or (with an update policy) updates the scalar properties of the object with
    /// the same primary key.
    private func store(_ values: [ColumnValue], in table: Table, update: UpdatePolicy) throws -> UInt64 {
        let write = requireWrite()
        defer { bumpStamp() }
        if update != .error {
            guard let column = table.primaryKeyColumn else {
                throw Realm.Error(.invalidInput, "'\(table.name)' does not have a primary key and can not be updated")
            }
            if let existing = try existingKey(values[column], in: table) {
                for (index, value) in values.enumerated()
                where index != column && table.property(index) != nil && !Self.isStoredLater(index, table) {
                    if update == .modified, self.value(column: index, key: existing, in: table) == value { continue }
                    try write.setValue(value, column: index, of: existing, in: table, catalog: catalog)
                }
                return existing
            }
        }
        let key = try write.newObjectKey(in: table, values: values)
        try write.insertObject(into: table, key: key, values: values)
        return key
    }

    private func existingKey(_ value: ColumnValue, in table: Table) throws -> UInt64? {
        let write = requireWrite()
        let index = try table.primaryKeyColumn.flatMap { table.indexes[$0] }.map { try write.root(of: $0) }
        return try write.objectKey(forPrimaryKey: value, in: table, root: write.root(of: table.tree), index: index)
    }

    private func value(column: Int, key: UInt64, in table: Table) -> ColumnValue? {
        guard let (leaf, row) = locate(table, key) else { return nil }
        return try? requireWrite().value(leaf, row: row, column: column, spec: table.layout[column])
    }

    func bumpStamp() { touch() }

    // MARK: Deleting

    /// Deletes a managed object; the instance (and every other accessor of it) becomes invalidated.
    public func delete(_ object: ObjectBase) {
        let write = requireWrite()
        guard let state = object.realmState else {
            fatalError("Can only delete an object from the Realm it belongs to.")
        }
        precondition(state.realm.file === file, "Can only delete an object from the Realm it belongs to.")
        do {
            try write.deleteObject(state.key, from: state.table, catalog: catalog)
        } catch {
            fileIsDamaged(error)
        }
        deletedInWrite.append(ObjectIdentity(tree: state.table.tree, key: state.key))
        bumpStamp()
    }

    /// Deletes every object of a sequence.
    public func delete<S: Sequence>(_ objects: S) where S.Element: ObjectBase {
        for object in Array(objects) { delete(object) }
    }

    /// Deletes every object of a `Results` (as it is when the call starts).
    public func delete<Element: Object>(_ results: Results<Element>) {
        for object in Array(results) { delete(object) }
    }

    /// Deletes every object in the realm. The file keeps its size; the space is reused.
    public func deleteAll() {
        let write = requireWrite()
        do {
            for table in catalog.tables.values {
                var keys: [UInt64] = []
                try write.forEachCluster(in: write.root(of: table.tree)) { leaf in
                    for row in 0..<leaf.count { keys.append(leaf.key(row)) }
                    return true
                }
                for key in keys { try write.deleteObject(key, from: table, catalog: catalog) }
            }
        } catch {
            fileIsDamaged(error)
        }
        bumpStamp()
    }

    // MARK: Reading

    /// Every object of a class, as a lazy, live collection.
    public func objects<Element: Object>(_ type: Element.Type) -> Results<Element> {
        Results(realm: self)
    }

    /// The object with the given primary key, or nil if there is none.
    ///
    /// Traps if the class has no primary key or `key` is not of the primary key's type, as in Realm.
    public func object<Element: Object, KeyType>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        guard let table = table(for: type) else { return nil }
        return object(in: table, forPrimaryKey: key).map { managedObject(Element.self, table: table, key: $0) }
    }

    /// The key of the object of `table` whose primary key is `key`. Traps if the class has no
    /// primary key or `key` is not of its type, as in Realm.
    func object<KeyType>(in table: Table, forPrimaryKey key: KeyType) -> UInt64? {
        guard let column = table.primaryKeyColumn, let property = table.property(column) else {
            fatalError("'\(table.name)' does not have a primary key")
        }
        let value: ColumnValue
        if let direct = Self.primaryKeyValue(key, kind: property.kind) {
            value = direct
        } else {
            do {
                value = try property.columnValue(from: key, className: table.name)
            } catch {
                fatalError("Invalid value '\(key)' of type '\(type(of: key))' for primary key '\(table.name).\(property.name)'")
            }
        }
        do {
            if let writer {
                let index = try table.indexes[column].map { try writer.root(of: $0) }
                return try writer.objectKey(forPrimaryKey: value, in: table, root: writer.root(of: table.tree), index: index)
            }
            let index = try table.indexes[column].map { try reader.root(of: $0) }
            return try reader.objectKey(forPrimaryKey: value, in: table, root: reader.root(of: table.tree), index: index)
        } catch {
            fileIsDamaged(error)
        }
    }

    /// The stored value of an `Int` or `String` primary key, converted directly: the general
    /// conversion (`columnValue(from:)`, which reflects to unwrap optionals and casts to
    /// protocols) was most of the time of a lookup by primary key.
    private static func primaryKeyValue<KeyType>(_ key: KeyType, kind: PropertyKind) -> ColumnValue? {
        switch kind {
        case .int:
            if let int = key as? Int { return .int(Int64(int)) }
            if let int = key as? Int64 { return .int(int) }
        case .string:
            if let string = key as? String { return .bytes(Array(string.utf8)) }
        default:
            break
        }
        return nil
    }

    /// A new accessor for a stored object.
    func managedObject<Element: ObjectBase>(_ type: Element.Type, table: Table, key: UInt64) -> Element {
        let object = type.init()
        object.attach(to: self, table: table, key: key)
        return object
    }
}
