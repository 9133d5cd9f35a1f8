/// How one class's schema differs from another of the same class, in Realm's words for each
/// difference ("Property 'Dog.age' has been added."), read from `old` to `new`.
///
/// Two questions use it. Opening a realm (the API's schema migration) compares the file's
/// class (`old`) with the program's (`new`): `added` and `removed` a version bump migrates
/// automatically, `breaking` needs a migration block. A handle already open compares the schema
/// of the version it reads (`old`) with a newer version's that another handle or process wrote
/// (`new`): only additions are changes it can follow (``SchemaCatalog/unsupportedChanges(to:)``).
package struct SchemaDifferences: Sendable, Equatable {
    /// Properties of `new` that `old` lacks.
    package var added: [String] = []
    /// Properties of `old` that `new` lacks.
    package var removed: [String] = []
    /// Properties whose type, optionality or collection changed; the primary key or the class's
    /// kind (top-level or embedded) changed.
    package var breaking: [String] = []

    package init(from old: ObjectSchemaInfo, to new: ObjectSchemaInfo) {
        let className = new.className
        let oldByName = Dictionary(uniqueKeysWithValues: old.properties.map { ($0.name, $0) })
        let newByName = Dictionary(uniqueKeysWithValues: new.properties.map { ($0.name, $0) })
        for property in new.properties where oldByName[property.name] == nil {
            added.append("Property '\(className).\(property.name)' has been added.")
        }
        for property in old.properties where newByName[property.name] == nil {
            removed.append("Property '\(className).\(property.name)' has been removed.")
        }
        for property in new.properties {
            guard let previous = oldByName[property.name] else { continue }
            if previous.kind != property.kind || previous.objectClassName != property.objectClassName
                || previous.collection != property.collection {
                breaking.append("Property '\(className).\(property.name)' has been changed from '\(previous.typeName)' to '\(property.typeName)'.")
            } else if previous.isOptional != property.isOptional {
                breaking.append("Property '\(className).\(property.name)' has been made \(property.isOptional ? "optional" : "required").")
            }
        }
        if old.isEmbedded != new.isEmbedded {
            let kinds = old.isEmbedded ? ("Embedded", "TopLevel") : ("TopLevel", "Embedded")
            breaking.append("Class '\(className)' has been changed from \(kinds.0) to \(kinds.1).")
        }
        if old.primaryKey?.name != new.primaryKey?.name {
            switch (old.primaryKey, new.primaryKey) {
            case (nil, let key?): breaking.append("Primary Key for class '\(className)' has been added ('\(key.name)').")
            case (let key?, nil): breaking.append("Primary Key for class '\(className)' has been removed ('\(key.name)').")
            case (let from?, let to?): breaking.append("Primary Key for class '\(className)' has changed from '\(from.name)' to '\(to.name)'.")
            default: break
            }
        }
    }
}

extension SchemaCatalog {
    /// What a handle reading a version with this schema cannot follow into a newer version whose
    /// schema is `new` (another handle or process changed it: a migration), one line per change
    /// in Realm's words; empty when `new` only adds (classes, properties, indexes).
    ///
    /// Realm's rule (object store, `ObjectStore::verify_valid_external_changes`, and the
    /// transaction log validator that refuses to advance a read past a removed or renamed table
    /// or column): an open realm follows additive changes made elsewhere; a class removed, a
    /// property removed, retyped or made optional or required, a primary key or a class's kind
    /// changed are "unsupported schema changes made by another client or process". Every class of
    /// the version counts, as in Realm, not only those a handle uses: an object's columns are
    /// found by name in the version's table, and a column retyped under an accessor of the old
    /// type would read its values as the wrong type.
    package func unsupportedChanges(to new: SchemaCatalog) -> [String] {
        guard new !== self else { return [] }
        var changes: [String] = []
        for old in stored.tables.map(\.schema).sorted(by: { $0.className < $1.className }) {
            guard let table = new.tables[old.className] else {
                changes.append("Class '\(old.className)' has been removed.")
                continue
            }
            let differences = SchemaDifferences(from: old, to: table.schema)
            changes += differences.removed + differences.breaking
        }
        return changes
    }
}

extension SchemaCatalog {
    /// Realm's message for ``unsupportedChanges(to:)``, one change a line, and what to do.
    package static func unsupportedChangesMessage(_ changes: [String]) -> String {
        "Unsupported schema changes were made by another client or process:" + changes.map { "\n- \($0)" }.joined()
            + "\nThis realm stays at the last version its classes can read: open it again with the new schema (its schemaVersion and classes)."
    }
}
