import PostgresNIO
import RealmActors

/// The DDL that brings PostgreSQL's tables to a commit's schema (``Realm/Commit/schemaChanges``),
/// run in the commit's transaction before its rows (see ``PostgresReplicationSink``, "Schema
/// changes"):
///
/// | change | PostgreSQL |
/// |---|---|
/// | class added | `CREATE TABLE` (embedded classes have no table) |
/// | class removed | the table dropped (``ReplicationBatch``: the class's `deletedAll`) |
/// | property added | `ADD COLUMN`, every existing row set to the value the realm's objects now hold (read from one the commit did not write) |
/// | property removed | the column kept (nulls for later rows), or dropped with `dropsRemovedColumns` |
/// | property renamed | `RENAME COLUMN` |
/// | property type changed | the column dropped and added with the new type, then filled as an added one |
/// | primary key changed, embedded ↔ top-level | the table dropped, created and loaded from the commit's realm (COPY, in bounded memory: ``BatchStatement/load(_:_:)``) |
/// | an embedded class changed | its owners' tables reloaded (their jsonb holds its objects) |
///
/// Objects the migration wrote are the commit's modifications, written after these.
struct SchemaChangeStatements {
    let commit: Realm.Commit
    let dropsRemovedColumns: Bool

    var realm: FrozenRealm { commit.realm }
    var schema: Schema { commit.realm.schema }

    /// The statements, with `known` (each table's columns, as the sink knows them) updated.
    func statements(known: inout [String: Set<String>]) -> [BatchStatement] {
        var statements: [BatchStatement] = []
        var reload: [String] = []      // classes loaded again whole, in order
        var filled: [String: [String]] = [:]  // class → columns to fill with the objects' default
        var touched: [String] = []     // classes whose table must match the schema
        func touch(_ name: String) { if !touched.contains(name) { touched.append(name) } }
        for change in commit.schemaChanges {
            switch change {
            case .classAdded(let name):
                touch(name)
            case .classRemoved:
                continue  // the class's deletedAll drops its table, in the batch's rows
            case .classRestructured(let name):
                if !reload.contains(name) { reload.append(name) }
            case .propertyAdded(let name, let property):
                touch(name)
                filled[name, default: []].append(property)
            case .propertyRemoved(let name, let property):
                if dropsRemovedColumns {
                    statements.append(.query(Self.dropColumn(property, of: name)))
                    known[name]?.remove(property)
                }
            case .propertyRenamed(let name, let from, let to):
                statements.append(.query(Self.renameColumn(from, to: to, of: name)))
                if known[name]?.remove(from) != nil { known[name]?.insert(to) }
            case .propertyTypeChanged(let name, let property):
                statements.append(.query(Self.dropColumn(property, of: name)))
                known[name]?.remove(property)
                touch(name)
                filled[name, default: []].append(property)
            }
        }
        // An embedded class has no table: its objects are in their owners' jsonb, which a change
        // of the class changes for every owner.
        for name in touched + filled.keys.sorted() + reload where schema[name]?.isEmbedded == true {
            for owner in owners(ofEmbedded: name) where !reload.contains(owner) { reload.append(owner) }
        }
        for name in touched where schema[name]?.isEmbedded == false && !reload.contains(name) {
            guard let objectSchema = schema[name] else { continue }
            let mapping = TableMapping(objectSchema, schema: schema)
            statements += mapping.creation(known: known[name] ?? []).map(BatchStatement.query)
            known[name] = Set(mapping.columns.map(\.name))
            if let columns = filled[name] { statements += fill(columns, of: mapping).map(BatchStatement.query) }
        }
        for name in reload {
            guard let objectSchema = schema[name], !objectSchema.isEmbedded else { continue }
            let mapping = TableMapping(objectSchema, schema: schema)
            statements.append(.query(TableMapping.drop(className: name)))
            statements += mapping.creation(known: []).map(BatchStatement.query)
            known[name] = Set(mapping.columns.map(\.name))
            statements.append(.load(mapping, realm))  // streamed with COPY, not held as upserts
        }
        return statements
    }

    /// `UPDATE` statements setting each of `columns` on every row to the value the class's
    /// objects hold there unless the commit wrote them (read from one it did not write; none if
    /// it wrote them all, which its modifications then carry).
    func fill(_ columns: [String], of mapping: TableMapping) -> [PostgresQuery] {
        let changes = commit.changes.first { $0.className == mapping.className }
        let written = Set((changes?.modified ?? []).map(\.key) + (changes?.inserted ?? []).map(\.key))
        guard let untouched = realm.dynamicObjects(mapping.className).first(where: { object in
            object.read(Realm.ObjectKey.init).map { !written.contains($0) } ?? false
        }) else { return [] }
        return columns.compactMap { name -> PostgresQuery? in
            guard let column = mapping.columns.first(where: { $0.name == name }), let property = column.property else { return nil }
            var binds = PostgresBindings()
            untouched.read { ColumnBinding($0[property.name], property: property) }.append(to: &binds)
            return PostgresQuery(unsafeSQL: "UPDATE \(mapping.table) SET \(TableMapping.quoted(name)) = $1::\(column.type)", binds: binds)
        }
    }

    /// The top-level classes whose objects hold objects of embedded class `name`, directly or
    /// through other embedded classes.
    func owners(ofEmbedded name: String) -> [String] {
        var embedded: Set<String> = [name], owners: [String] = []
        var changed = true
        while changed {
            changed = false
            for objectSchema in schema.objectSchema where !embedded.contains(objectSchema.className) {
                guard objectSchema.properties.contains(where: { $0.objectClassName.map(embedded.contains) ?? false }) else { continue }
                if objectSchema.isEmbedded {
                    embedded.insert(objectSchema.className)
                    changed = true
                } else if !owners.contains(objectSchema.className) {
                    owners.append(objectSchema.className)
                }
            }
        }
        return owners
    }

    static func dropColumn(_ column: String, of className: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: "ALTER TABLE IF EXISTS \(TableMapping.quoted(className)) DROP COLUMN IF EXISTS \(TableMapping.quoted(column))")
    }

    /// Renames the column if the table has it and not the new name yet (a batch applied again
    /// after a crash finds it renamed): PostgreSQL's `RENAME COLUMN` has no `IF EXISTS`.
    static func renameColumn(_ from: String, to: String, of className: String) -> PostgresQuery {
        let literal = { (text: String) in "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        return PostgresQuery(unsafeSQL: """
            DO $$ BEGIN
              IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(literal(className)) AND column_name = \(literal(from)))
                 AND NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = \(literal(className)) AND column_name = \(literal(to))) THEN
                ALTER TABLE \(TableMapping.quoted(className)) RENAME COLUMN \(TableMapping.quoted(from)) TO \(TableMapping.quoted(to));
              END IF;
            END $$
            """)
    }
}
