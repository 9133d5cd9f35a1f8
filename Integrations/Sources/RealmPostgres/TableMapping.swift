import Foundation
import PostgresNIO
import RealmActors

/// How a class is a PostgreSQL table (see ``PostgresReplicationSink``, "Mapping"): the table is
/// named after the class, a column per persisted property, the key column first — the primary
/// key's, or `_realm_key` (the object key) for a class without one.
struct TableMapping: Sendable {
    /// A column: its name, its PostgreSQL type, and the property it holds (nil for `_realm_key`).
    struct Column: Sendable {
        let name: String
        let type: String
        let property: Property?
    }

    let className: String
    /// The columns, the key column first.
    let columns: [Column]

    /// The table of `objectSchema`, whose links and embedded objects `schema` resolves.
    init(_ objectSchema: ObjectSchema, schema: Schema) {
        className = objectSchema.className
        var columns: [Column] = []
        if objectSchema.primaryKeyProperty == nil { columns.append(Column(name: "_realm_key", type: "bigint", property: nil)) }
        let properties = objectSchema.properties.sorted { ($0.isPrimary ? 0 : 1) < ($1.isPrimary ? 0 : 1) }
        for property in properties {
            columns.append(Column(name: property.name, type: Self.columnType(property, schema: schema), property: property))
        }
        self.columns = columns
    }

    var key: Column { columns[0] }
    var table: String { Self.quoted(className) }

    /// The PostgreSQL type of a property's column.
    static func columnType(_ property: Property, schema: Schema) -> String {
        if property.isArray || property.isSet || property.isMap { return "jsonb" }
        switch property.type {
        case .int: return "bigint"
        case .bool: return "boolean"
        case .float: return "real"
        case .double: return "double precision"
        case .string, .objectId: return "text"
        case .data: return "bytea"
        case .date: return "timestamptz"
        case .decimal128: return "numeric"
        case .UUID: return "uuid"
        case .any, .linkingObjects: return "jsonb"
        case .object:
            guard let target = property.objectClassName.flatMap({ schema[$0] }), !target.isEmbedded else { return "jsonb" }
            guard let key = target.primaryKeyProperty else { return "bigint" }  // the target's object key
            return columnType(key, schema: schema)
        }
    }

    /// `identifier` as a quoted SQL identifier.
    static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    // MARK: Statements

    /// `CREATE TABLE IF NOT EXISTS` and an `ADD COLUMN IF NOT EXISTS` per column not in `known`.
    func creation(known: Set<String>) -> [PostgresQuery] {
        var statements = [PostgresQuery(unsafeSQL: "CREATE TABLE IF NOT EXISTS \(table) (\(Self.quoted(key.name)) \(key.type) PRIMARY KEY)")]
        for column in columns.dropFirst() where !known.contains(column.name) {
            statements.append(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS \(Self.quoted(column.name)) \(column.type)"))
        }
        return statements
    }

    /// `DROP TABLE IF EXISTS` for class `className`, whose table was dropped in the realm (the
    /// class is in no schema any more, so there is no mapping of it to ask).
    static func drop(className: String) -> PostgresQuery { PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(quoted(className))") }

    /// Adds to `statements` multi-row `INSERT … ON CONFLICT (key) DO UPDATE` writes of `columns`
    /// (the key first) of each object, with its values at the object's version.
    ///
    /// - Complexity: O(objects × columns) values read.
    func upserts(_ objects: [(key: Realm.ObjectKey, object: Frozen<DynamicObject>)], columns: [Column], into statements: inout RowStatements) {
        let names = columns.map { Self.quoted($0.name) }
        let updates = names.dropFirst().map { "\($0) = EXCLUDED.\($0)" }
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", ")
        let rowsPerWrite = max(1, RowStatements.maximumBinds / columns.count)
        for start in stride(from: 0, to: objects.count, by: rowsPerWrite) {
            let chunk = objects[start..<min(objects.count, start + rowsPerWrite)]
            statements.append(bindCount: chunk.count * columns.count) { binds in
                var rows: [String] = []
                rows.reserveCapacity(chunk.count)
                for (key, object) in chunk {
                    var placeholders: [String] = []
                    ColumnBinding(key).append(to: &binds)
                    placeholders.append("$\(binds.count)::\(columns[0].type)")
                    object.read { object in
                        for column in columns.dropFirst() {
                            guard let property = column.property else { continue }  // `_realm_key`: only ever first
                            ColumnBinding(object[property.name], property: property).append(to: &binds)
                            placeholders.append("$\(binds.count)::\(column.type)")
                        }
                    }
                    rows.append("(" + placeholders.joined(separator: ", ") + ")")
                }
                return """
                    INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES \(rows.joined(separator: ", ")) \
                    ON CONFLICT (\(names[0])) \(conflict)
                    """
            }
        }
    }

    /// Adds to `statements` `DELETE … WHERE key IN (…)` writes for the objects with `keys`.
    func deletes(_ keys: [Realm.ObjectKey], into statements: inout RowStatements) {
        for start in stride(from: 0, to: keys.count, by: RowStatements.maximumBinds) {
            let chunk = keys[start..<min(keys.count, start + RowStatements.maximumBinds)]
            statements.append(bindCount: chunk.count) { binds in
                var placeholders: [String] = []
                placeholders.reserveCapacity(chunk.count)
                for key in chunk {
                    ColumnBinding(key).append(to: &binds)
                    placeholders.append("$\(binds.count)::\(self.key.type)")
                }
                return "DELETE FROM \(table) WHERE \(Self.quoted(key.name)) IN (\(placeholders.joined(separator: ", ")))"
            }
        }
    }
}
