import Foundation
internal import RealmRuntime

extension Realm {
    /// Checks every page that reading the objects of the classes `classNames` can reach at this
    /// handle's version — their tables and indexes, and those of every class they link to or
    /// embed, directly or not — that those tables' pages hold the schema's columns, and that
    /// their links name objects that exist; and nothing else: what a reader that must not trap runs before
    /// it reads some classes of a file it does not trust (`realm-inspect count` and `query` do).
    /// ``checkIntegrity()`` checks the whole file.
    ///
    /// After it returns, reading those classes at this version meets no damaged page (a handle
    /// that refreshes reads a newer version, which it did not check).
    ///
    /// - Throws: ``Realm/Error`` with code ``Realm/Error/Code/invalidDatabase`` naming the first
    ///   damaged pages and what they belong to ("table 'Dog'", "index 'Dog.name'"); a class the
    ///   schema lacks is ``Realm/Error/Code/fail``.
    /// - Complexity: O(pages of those trees).
    public func checkIntegrity(ofClasses classNames: [String]) throws {
        var pending = classNames, reached = Set<String>()
        while let name = pending.popLast() {
            guard !reached.contains(name) else { continue }
            guard let table = catalog.tables[name] else { throw Realm.Error(.fail, "The realm has no class '\(name)'") }
            reached.insert(name)
            for property in table.schema.properties {
                if let target = property.objectClassName { pending.append(target) }
                // A mixed value may link to an object of any class.
                if property.kind == .mixed { pending += catalog.tables.keys }
            }
            pending += table.schema.linkingObjects.map(\.originClass)
        }
        var trees: Set<TreeID> = [StoredSchema.metadataTree]
        for name in reached {
            let table = catalog.tables[name]!
            trees.insert(table.tree)
            trees.formUnion(table.indexes.values)
        }
        do {
            try Database.verify(trees, at: reader, tableColumns: catalog.tableColumns, treeNames: treeNames)
            try Database.throwProblems(reader.contentProblems(of: reached.map { catalog.tables[$0]! }, in: catalog))
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
    }

    /// What can still be read of a class's objects in a damaged file: see ``readableObjects(ofClass:)``.
    public struct ReadableObjects {
        /// The objects every page on the way to which passes its checks (checksum, kind,
        /// transaction, key order), with their large values, in key order. Their properties can
        /// be read without meeting damage — but for links and embedded objects, which live in
        /// other pages: follow one only to an object that ``contains(_:)`` of its class's
        /// readable objects accepts.
        public let objects: Objects
        /// How many objects the damaged pages held, as the pages above them record (the
        /// catalog, which opening checked, for the table's root). A page is taken as intact only
        /// if it holds as many objects as its parent records, so these records are consistent.
        public let lost: Int
        /// The damaged pages: each page, what is wrong with it and what it belongs to.
        public let damage: [String]

        /// The readable objects in key order, each made when it is read: only their keys are
        /// held (8 bytes an object), so a caller that walks them in batches holds a batch's
        /// accessors at a time, whatever the size of the table.
        public struct Objects: RandomAccessCollection {
            let realm: Realm
            let table: Table
            /// The readable rows' keys, ascending.
            let keys: [UInt64]

            /// 0.
            public var startIndex: Int { 0 }
            /// The number of readable objects.
            public var endIndex: Int { keys.count }
            /// The object at `position`, made now (traps if out of bounds, like an array).
            public subscript(position: Int) -> DynamicObject {
                realm.managedObject(DynamicObject.self, table: table, key: keys[position])
            }
        }

        /// The position in ``objects`` of `object` (an object of this class in the same file),
        /// or nil if it is not readable — it lies in a damaged page, or its row is not there.
        /// O(log n): the keys are sorted.
        public func position(of object: ObjectBase) -> Int? {
            guard let state = object.realmState, state.realm.file === objects.realm.file, state.table.tree == objects.table.tree else { return nil }
            let keys = objects.keys
            var low = 0, high = keys.count
            while low < high {
                let middle = (low + high) / 2
                if keys[middle] < state.key { low = middle + 1 } else { high = middle }
            }
            return low < keys.count && keys[low] == state.key ? low : nil
        }

        /// Whether `object` is one of ``objects``: a link or an embedded object may be followed
        /// only to such an object.
        public func contains(_ object: ObjectBase) -> Bool { position(of: object) != nil }
    }

    /// The objects of the class `className` that can still be read at this handle's version,
    /// and what was lost: the class's table is walked as ``checkIntegrity()`` walks it, but a
    /// damaged page costs only the objects below it. What `realm-inspect recover` copies.
    ///
    /// - Throws: ``Realm/Error`` ``Realm/Error/Code/fail`` for a class the schema lacks.
    /// - Complexity: O(pages of the class's table); the objects are made as they are read.
    public func readableObjects(ofClass className: String) throws -> ReadableObjects {
        guard let table = catalog.tables[className] else { throw Realm.Error(.fail, "The realm has no class '\(className)'") }
        let salvage: TableSalvage
        do {
            salvage = try Database.salvage(tableTree: table.tree, at: reader)
        } catch {
            throw Realm.Error.from(error, configuration: configuration)
        }
        return ReadableObjects(objects: ReadableObjects.Objects(realm: self, table: table, keys: salvage.keys),
                               lost: Int(clamping: salvage.lost),
                               damage: salvage.problems.map { "\($0) (table '\(className)')" })
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
