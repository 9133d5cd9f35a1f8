import Foundation
internal import RealmRuntime

extension Realm {
    /// Checks every page that reading the objects of the classes `classNames` can reach at this
    /// handle's version — their tables and indexes, and those of every class they link to or
    /// embed, directly or not — and nothing else: what a reader that must not trap runs before
    /// it reads some classes of a file it does not trust (`realm-inspect count` and `query` do).
    /// ``checkIntegrity()`` checks the whole file.
    ///
    /// After it returns, reading those classes at this version meets no damaged page (a handle
    /// that refreshes reads a newer version, which it did not check).
    ///
    /// - Throws: ``Realm/Error`` with code ``Realm/Error/Code/invalidDatabase`` naming the first
    ///   damaged pages and what they belong to ("table 'Dog'", "index 'Dog.name'"); a class the
    ///   schema lacks is ``Realm/Error/Code/fail``.
    /// With `followingLinks` false, only the classes themselves and the embedded classes their
    /// objects hold are checked: enough to count their objects and read the properties that are
    /// not links (`realm-inspect recover` counts what it lost this way).
    ///
    /// - Complexity: O(pages of those trees).
    public func checkIntegrity(ofClasses classNames: [String], followingLinks: Bool = true) throws {
        var pending = classNames, reached = Set<String>()
        while let name = pending.popLast() {
            guard !reached.contains(name) else { continue }
            guard let table = catalog.tables[name] else { throw Realm.Error(.fail, "The realm has no class '\(name)'") }
            reached.insert(name)
            for property in table.schema.properties {
                if let target = property.objectClassName,
                   followingLinks || catalog.tables[target]?.schema.isEmbedded == true { pending.append(target) }
                // A mixed value may link to an object of any class.
                if property.kind == .mixed && followingLinks { pending += catalog.tables.keys }
            }
            if followingLinks { pending += table.schema.linkingObjects.map(\.originClass) }
        }
        var trees: Set<TreeID> = [StoredSchema.metadataTree]
        for name in reached {
            let table = catalog.tables[name]!
            trees.insert(table.tree)
            trees.formUnion(table.indexes.values)
        }
        do {
            try Database.verify(trees, at: reader, treeNames: treeNames)
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
    }

    /// What each tree of the file is, in words, for messages about damage: "table 'Dog'",
    /// "index 'Dog.name'", "the schema".
    var treeNames: [TreeID: String] {
        var names: [TreeID: String] = [StoredSchema.metadataTree: "the schema"]
        for table in catalog.tables.values {
            names[table.tree] = "table '\(table.name)'"
            for (property, tree) in table.stored.indexes { names[tree] = "index '\(table.name).\(property)'" }
        }
        return names
    }
}
