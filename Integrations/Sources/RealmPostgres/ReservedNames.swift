import RealmActors

/// The names a schema must not have for the sink to map it (see ``PostgresReplicationSink``,
/// "Mapping"), each of which would make PostgreSQL mix two things up, or refuse the DDL on
/// every retry:
///
/// - a property named `_realm_key` in a class without a primary key: its table's key column
///   has that name;
/// - a class named `realm_replication_…`: the sink's own tables (``ReplicationProgress``,
///   ``DeadLetter``, ``MappedTables``) have such names, and the prefix is kept for later ones;
/// - a class or property name longer than 63 bytes of UTF-8: PostgreSQL cuts identifiers to 63
///   (`NAMEDATALEN` - 1), so two names alike in their first 63 bytes would be one table or column
///   (Realm's own limits, 57 bytes for a class and 63 for a property, keep within it today: the
///   check guards the mapping, not today's realms);
/// - a class or property name with a NUL character, which no identifier can hold.
///
/// Embedded classes have no table, and their properties are `jsonb` keys: only top-level
/// classes are checked. The sink refuses such a schema before it creates the slot or loads a
/// snapshot, and stops at a commit whose schema has one (a migration that introduced it),
/// having applied the commits before it: ``ReplicationSinkError/Reason/reservedName``.
enum ReservedNames {
    static let tablePrefix = "realm_replication_"
    /// The longest identifier PostgreSQL keeps whole, in bytes.
    static let maximumIdentifierBytes = 63

    /// What is wrong with the names of a schema's classes, a sentence each (none if nothing).
    static func problems(in classes: [ObjectSchema]) -> [String] {
        var problems: [String] = []
        for objectSchema in classes where !objectSchema.isEmbedded {
            let name = objectSchema.className
            if name.hasPrefix(tablePrefix) {
                problems.append("class '\(name)' is named like the sink's own tables (\(tablePrefix)…)")
            }
            problems += identifierProblems(name, what: "class '\(name)'")
            for property in objectSchema.properties {
                if property.name == "_realm_key", objectSchema.primaryKeyProperty == nil {
                    problems.append("class '\(name)' has no primary key and a property '_realm_key', the name of the key column of such a class's table")
                }
                problems += identifierProblems(property.name, what: "property '\(name).\(property.name)'")
            }
        }
        return problems
    }

    private static func identifierProblems(_ name: String, what: String) -> [String] {
        var problems: [String] = []
        if name.utf8.count > maximumIdentifierBytes {
            problems.append("\(what) has a name of \(name.utf8.count) bytes, longer than PostgreSQL's identifiers (\(maximumIdentifierBytes))")
        }
        if name.utf8.contains(0) { problems.append("\(what) has a NUL character in its name") }
        return problems
    }

    /// Throws the stop for `schema` if it has names the sink cannot map; `when` says what the
    /// schema is ("the realm's schema", "the schema of version 12").
    static func check(_ schema: Schema, slot: String, when: String) throws(ReplicationSinkError) {
        let problems = problems(in: schema.objectSchema)
        guard !problems.isEmpty else { return }
        throw ReplicationSinkError(.reservedName, """
            \(when) has names PostgreSQL cannot hold as the sink maps them, so slot '\(slot)' is not replicated past it: \
            \(problems.joined(separator: "; ")). Rename them in the realm (a migration: renameProperty, or a class of another \
            name); then, if the realm has slot '\(slot)', drop it (`realm-inspect drop-slot FILE \(slot)`: a snapshot is loaded \
            at the slot's position, which is before the rename), and start the sink with `resynchronize: true`, which creates \
            the slot and loads a new snapshot.
            """)
    }

    /// `commits` split before the first whose schema has names the sink cannot map: the commits
    /// to apply, and the stop to throw once they are applied (nil if every commit's schema is
    /// fine). Each batch's first commit and each commit that changed the schema are checked
    /// (a batch's other commits share the schema of the commit before them).
    static func split(_ commits: [Realm.Commit], slot: String) -> (commits: [Realm.Commit], refusal: ReplicationSinkError?) {
        for (index, commit) in commits.enumerated() where index == 0 || !commit.schemaChanges.isEmpty {
            do {
                try check(commit.realm.schema, slot: slot, when: "The schema of the realm's version \(commit.version) (a migration)")
            } catch {
                return (Array(commits[..<index]), error)
            }
        }
        return (commits, nil)
    }
}
