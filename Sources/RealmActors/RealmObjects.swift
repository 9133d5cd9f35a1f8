import Foundation
internal import RealmRuntime

/// What `add(_:update:)` does when an object with the same primary key exists.
public enum UpdatePolicy: Int, Sendable {
    /// Adding an object whose primary key is taken fails (the transaction's commit throws).
    case error = 1
    /// The existing object takes every property of the new one.
    case all = 2
    /// The existing object takes only the properties whose values differ.
    case modified = 3
}

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
    /// key — do not stop the program: the object stays unmanaged and the transaction's
    /// ``commitWrite()`` (or ``write(_:)``) throws the first such error and writes nothing.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        _ = requireWrite()
        if let state = object.realmState {
            precondition(state.realm.file === file,
                         "Object is already managed by another Realm. Use create instead to copy it into this Realm.")
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
            let given = try ObjectValues.values(for: T.self, from: value)
            object.dynamicValues = given
            let table = try tableCreatingIfNeeded(for: T.self)
            if update != .error, let column = table.primaryKeyColumn, let name = table.property(column)?.name,
               let keyValue = given[name], let existing = try existingKey(keyValue, in: table) {
                let write = requireWrite()
                for (property, value) in given where property != name {
                    guard let column = table.columns[property] else { continue }
                    if update == .modified, self.value(column: column, key: existing, in: table) == value { continue }
                    try write.setValue(value, column: column, of: existing, in: table)
                }
                manage(object, table: table, key: existing)
                bumpStamp()
                return object
            }
            try insertOrUpdate(object, in: table, update: update)
        } catch {
            recordDeferredError(error)
        }
        return object
    }

    /// Stores an unmanaged object's values (see ``store(_:in:update:)``) and makes it managed.
    private func insertOrUpdate(_ object: Object, in table: Table, update: UpdatePolicy) throws {
        let values = try physicalValues(ObjectSchemaDiscovery.unmanagedValues(of: object), table)
        manage(object, table: table, key: try store(values, in: table, update: update))
    }

    /// Turns an unmanaged instance into an accessor of the stored object `key`.
    private func manage(_ object: Object, table: Table, key: UInt64) {
        object.realmState = ObjectState(realm: self, table: table, key: key)
        object.dynamicValues = nil
    }

    /// Every physical column's value for a new row, by property name.
    private func physicalValues(_ byName: [String: ColumnValue], _ table: Table) throws -> [ColumnValue] {
        table.stored.columns.enumerated().map { column, property in
            property.flatMap { byName[$0.name] } ?? table.layout[column].defaultValue
        }
    }

    /// Inserts a row, or (with an update policy) updates the object with the same primary key.
    private func store(_ values: [ColumnValue], in table: Table, update: UpdatePolicy) throws -> UInt64 {
        let write = requireWrite()
        defer { bumpStamp() }
        if update != .error {
            guard let column = table.primaryKeyColumn else {
                throw Realm.Error(.invalidInput, "'\(table.name)' does not have a primary key and can not be updated")
            }
            if let existing = try existingKey(values[column], in: table) {
                for (index, value) in values.enumerated() where index != column && table.property(index) != nil {
                    if update == .modified, self.value(column: index, key: existing, in: table) == value { continue }
                    try write.setValue(value, column: index, of: existing, in: table)
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
            try write.deleteObject(state.key, from: state.table)
        } catch {
            fatalError("The realm file is damaged: \(error)")
        }
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
                for key in keys { try write.deleteObject(key, from: table) }
            }
        } catch {
            fatalError("The realm file is damaged: \(error)")
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
        guard let column = table.primaryKeyColumn, let property = table.property(column) else {
            fatalError("'\(table.name)' does not have a primary key")
        }
        let value: ColumnValue
        do {
            value = try property.columnValue(from: key, className: table.name)
        } catch {
            fatalError("Invalid value '\(key)' of type '\(KeyType.self)' for primary key '\(table.name).\(property.name)'")
        }
        do {
            let found: UInt64?
            if let writer {
                let index = try table.indexes[column].map { try writer.root(of: $0) }
                found = try writer.objectKey(forPrimaryKey: value, in: table, root: writer.root(of: table.tree), index: index)
            } else {
                let index = try table.indexes[column].map { try reader.root(of: $0) }
                found = try reader.objectKey(forPrimaryKey: value, in: table, root: reader.root(of: table.tree), index: index)
            }
            return found.map { managedObject(Element.self, table: table, key: $0) }
        } catch {
            fatalError("The realm file is damaged: \(error)")
        }
    }

    /// A new accessor for a stored object.
    func managedObject<Element: Object>(_ type: Element.Type, table: Table, key: UInt64) -> Element {
        let object = Element()
        object.realmState = ObjectState(realm: self, table: table, key: key)
        return object
    }
}

/// Turning the `value:` of `Object(value:)` and `create(_:value:)` into property values.
enum ObjectValues {
    /// The values a dictionary, array or object gives, by property name, each checked against
    /// its property's type.
    static func values(for type: ObjectBase.Type, from value: Any) throws -> [String: ColumnValue] {
        let schema = ObjectSchemaDiscovery.schema(for: type)
        var result: [String: ColumnValue] = [:]
        switch value {
        case let dictionary as [String: Any?]:
            for property in schema.properties {
                guard let entry = dictionary[property.name] else { continue }
                result[property.name] = try property.columnValue(from: entry, className: schema.className)
            }
        case let array as [Any?]:
            guard array.count <= schema.properties.count else {
                throw Realm.Error(.invalidInput, "Invalid array input: more values (\(array.count)) than properties (\(schema.properties.count)).")
            }
            for (property, entry) in zip(schema.properties, array) {
                result[property.name] = try property.columnValue(from: entry, className: schema.className)
            }
        case let object as Object:
            for property in schema.properties {
                result[property.name] = try property.columnValue(from: object[property.name], className: schema.className)
            }
        default:
            throw Realm.Error(.invalidInput, "Invalid value '\(value)' to initialize an object of type '\(schema.className)': expected a dictionary, an array or an object")
        }
        return result
    }
}

extension Object {
    /// Creates an unmanaged object from a dictionary (by property name, any order), an array (in
    /// declaration order) or another object; unmentioned properties keep their initial values.
    ///
    /// Traps, as Realm does, on a value of the wrong type or more array values than properties.
    public convenience init(value: Any) {
        self.init()
        do {
            dynamicValues = try ObjectValues.values(for: type(of: self), from: value)
        } catch {
            fatalError("\(error)")
        }
    }
}
