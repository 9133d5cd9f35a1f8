import PostgresNIO
import RealmActors

/// Commits to apply in one PostgreSQL transaction, reduced to their net effect per object: the
/// last thing that happened to it — deleted, or written (with every property a commit of the
/// batch wrote, read at the newest of those commits) — and, per class, whether a commit dropped
/// its table. The rows then go out as one multi-row statement per class and set of columns, not
/// one per object per commit: what PostgreSQL's parse, plan and round trip cost is paid for.
///
/// Applying the net effect is applying the commits one by one: PostgreSQL sees the batch
/// atomically (one transaction), so no one can observe the states in between.
///
/// **One schema per batch.** Every object of a batch is read with the schema of the batch's
/// commits, which must all share it: commits are split into batches before each commit that
/// changed the schema (``segments(_:)``), and that commit's ``Realm/Commit/schemaChanges`` are
/// applied first (``SchemaChangeStatements``). An object written before a migration is read with
/// the schema it was written with, never with a property it does not have.
struct ReplicationBatch {
    /// What happens to one object's row.
    enum Row {
        /// Write these properties (nil: all of them) with the object's values.
        case write(Set<String>?, Frozen<DynamicObject>)
        case delete
    }

    /// One class's net changes.
    struct ClassRows {
        /// Whether a commit dropped the class's table (before the rows below).
        var dropped = false
        var rows: [Realm.ObjectKey: Row] = [:]
    }

    /// Classes in the order the commits first changed them (set by ``PoisonIsolation`` to
    /// apply a commit's rows one at a time).
    var classes: [(name: String, rows: ClassRows)] = []
    /// The schema of the batch's commits: the tables' columns.
    let schema: Schema
    /// The batch's first commit if it changed the schema (the later commits of a batch change
    /// none): its changes are applied before the rows.
    var schemaCommit: Realm.Commit?

    /// `commits` (oldest first) cut before each commit that changed the schema: each part is a
    /// batch whose commits share one schema.
    static func segments(_ commits: [Realm.Commit]) -> [[Realm.Commit]] {
        var segments: [[Realm.Commit]] = []
        for commit in commits {
            if segments.isEmpty || !commit.schemaChanges.isEmpty {
                segments.append([commit])
            } else {
                segments[segments.count - 1].append(commit)
            }
        }
        return segments
    }

    /// The net effect of `commits` (oldest first; not empty; only the first may change the
    /// schema: see ``segments(_:)``).
    init(_ commits: [Realm.Commit]) {
        precondition(commits.dropFirst().allSatisfy(\.schemaChanges.isEmpty), "a batch spans a schema change")
        schema = commits[commits.count - 1].realm.schema
        schemaCommit = commits[0].schemaChanges.isEmpty ? nil : commits[0]
        var positions: [String: Int] = [:]
        for commit in commits {
            for changes in commit.changes {
                if positions[changes.className] == nil {
                    positions[changes.className] = classes.count
                    classes.append((changes.className, ClassRows()))
                }
                let position = positions[changes.className]!
                if changes.deletedAll { classes[position].rows = ClassRows(dropped: true) }
                for change in changes.inserted { classes[position].rows.rows[change.key] = .write(nil, change.object) }
                for change in changes.modified {
                    switch classes[position].rows.rows[change.key] {
                    case .write(let written?, _):
                        classes[position].rows.rows[change.key] = .write(written.union(change.changedProperties), change.object)
                    case .write(nil, _), .delete:  // created in the batch: every property
                        classes[position].rows.rows[change.key] = .write(nil, change.object)
                    case nil:
                        classes[position].rows.rows[change.key] = .write(Set(change.changedProperties), change.object)
                    }
                }
                for key in changes.deleted { classes[position].rows.rows[key] = .delete }
            }
        }
    }

    /// The statements that apply the batch — per class: its table dropped, created or given
    /// new columns, then its rows written and deleted — and the columns each table has after
    /// them. `known` is the columns each table is known to have (tables not in it are checked
    /// with `IF NOT EXISTS`).
    func statements(known: [String: Set<String>], dropsRemovedColumns: Bool = false) -> (statements: [BatchStatement], known: [String: Set<String>]) {
        var statements: [BatchStatement] = []
        var known = known
        if let schemaCommit {
            statements += SchemaChangeStatements(commit: schemaCommit, dropsRemovedColumns: dropsRemovedColumns).statements(known: &known)
        }
        // The rows of every class in one statement (as few as the bind limit allows), after
        // every class's DDL: no write needs another class's DDL after it, and no DDL a write.
        var rows = RowStatements()
        for (className, changes) in classes {
            let objectSchema = schema[className]
            if changes.dropped {
                statements.append(.query(TableMapping.drop(className: className)))
                known[className] = nil
            }
            // Embedded classes have no table: their objects are in their owners' jsonb.
            guard let objectSchema, !objectSchema.isEmbedded, !changes.rows.isEmpty else { continue }
            let mapping = TableMapping(objectSchema, schema: schema)
            let names = Set(mapping.columns.map(\.name))
            if !names.isSubset(of: known[className] ?? []) {
                statements += mapping.creation(known: known[className] ?? []).map(BatchStatement.query)
                known[className] = names
            }
            var writes: [Set<String>?: [(key: Realm.ObjectKey, object: Frozen<DynamicObject>)]] = [:]
            var deletes: [Realm.ObjectKey] = []
            for (key, row) in changes.rows {
                switch row {
                case .write(let properties, let object): writes[properties, default: []].append((key, object))
                case .delete: deletes.append(key)
                }
            }
            for (properties, objects) in writes {
                // The key column, then those of the properties written.
                let columns = mapping.columns.enumerated().filter { index, column in
                    guard index > 0, let properties else { return true }
                    return column.property.map { properties.contains($0.name) } ?? false
                }.map(\.element)
                mapping.upserts(objects, columns: columns, into: &rows)
            }
            mapping.deletes(deletes, into: &rows)
        }
        return (statements + rows.statements().map(BatchStatement.query), known)
    }
}
