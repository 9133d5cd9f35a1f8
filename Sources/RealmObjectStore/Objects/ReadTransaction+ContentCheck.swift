package import RealmStorage

/// What the integrity check adds, knowing the schema, to its checks of the pages: that what
/// sound pages hold agrees with itself. A link is an object key and an index entry a value and
/// an object key; a page can hold either sound and wrong, and a reader then follows it to an
/// object that is not there (and traps, as Realm does for a deleted object) or answers a query
/// wrongly.
extension ReadTransaction {
    /// The problems in the objects of `tables`, in words:
    /// - a link — a link property, a list, set or map of links, an `AnyRealmValue` (nested
    ///   collections included) — naming an object its target's table does not have, or a table
    ///   `catalog` does not have;
    /// - an index (a property's, a primary key's, or the link index behind backlinks) whose
    ///   entries are not exactly those of the table's objects.
    ///
    /// At most `limit` problems are described; the rest are counted in one last entry.
    ///
    /// Precondition: the pages of `tables`, of their indexes and of the tables they link to
    /// passed the page checks at this version (this reads them, and throws on damage it meets).
    ///
    /// - Complexity: O(L log n) for L links, each a descent of its target's tree, plus
    ///   O(E log E) time and O(E) memory for E entries of the largest index (its expected
    ///   entries are built and sorted, then compared with the index in one pass).
    package func contentProblems(of tables: some Sequence<Table>, in catalog: SchemaCatalog, limit: Int = 100) throws -> [String] {
        var check = ContentCheck(source: self, catalog: catalog, limit: limit)
        for table in tables {
            try check.checkLinks(of: table)
            try check.checkIndexes(of: table)
        }
        return check.finished()
    }
}

/// The state of one ``ReadTransaction/contentProblems(of:in:limit:)`` run.
private struct ContentCheck {
    let source: ReadTransaction
    let catalog: SchemaCatalog
    let limit: Int
    let tablesByTree: [TreeID: Table]
    private var roots: [TreeID: TreeRoot] = [:]
    private var problems: [String] = []
    private var unlisted = 0

    init(source: ReadTransaction, catalog: SchemaCatalog, limit: Int) {
        self.source = source
        self.catalog = catalog
        self.limit = limit
        tablesByTree = Dictionary(catalog.tables.values.map { ($0.tree, $0) }) { first, _ in first }
    }

    mutating func report(_ problem: @autoclosure () -> String) {
        if problems.count < limit { problems.append(problem()) } else { unlisted += 1 }
    }

    func finished() -> [String] {
        unlisted > 0 ? problems + ["and \(unlisted) more"] : problems
    }

    private mutating func root(_ tree: TreeID) throws -> TreeRoot {
        if let root = roots[tree] { return root }
        let root = try source.root(of: tree)
        roots[tree] = root
        return root
    }

    private mutating func exists(_ key: UInt64, in target: Table) throws -> Bool {
        try source.row(in: root(target.tree), key: key) != nil
    }

    /// Every link of the objects of `table` names an object that exists.
    mutating func checkLinks(of table: Table) throws {
        let linkColumns = table.layout.indices.filter { table.property($0)?.canLink == true }
        guard !linkColumns.isEmpty else { return }
        try source.forEachCluster(in: root(table.tree)) { leaf in
            for row in 0..<leaf.count {
                for column in linkColumns {
                    try checkLinks(in: try source.value(leaf, row: row, column: column, spec: table.layout[column]),
                                   of: table, column: column, object: leaf.key(row))
                }
            }
            return true
        }
    }

    private mutating func checkLinks(in value: ColumnValue, of table: Table, column: Int, object: UInt64) throws {
        let property = table.property(column)!
        let origin = "'\(table.name).\(property.name)' of object \(object)"
        if property.kind == .object {
            guard let name = property.objectClassName, let target = catalog.tables[name] else {
                report("\(origin) links to class '\(property.objectClassName ?? "")', which the schema lacks")
                return
            }
            for key in table.linkedKeys(value, column: column) where try !exists(key, in: target) {
                report("\(origin) links to object \(key) of '\(name)', which does not exist")
            }
            return
        }
        let elements: [ColumnValue] = switch (property.collection, value) {
        case (nil, _): [value]
        case (.map?, .bytes(let bytes)): PackedCollection.entries(PackedCollection.decode(bytes)).map(\.value)
        case (_, .bytes(let bytes)): PackedCollection.decode(bytes)
        default: []
        }
        for element in elements {
            guard let links = MixedValue(stored: element).links else {
                report("\(origin) nests collections deeper than \(MixedValue.maximumNesting) levels")
                continue
            }
            for (tree, key) in links {
                guard let target = tablesByTree[tree] else {
                    report("\(origin) links to object \(key) of tree \(tree), which holds no table")
                    continue
                }
                if try !exists(key, in: target) {
                    report("\(origin) links to object \(key) of '\(target.name)', which does not exist")
                }
            }
        }
    }

    /// Each index of `table` holds exactly the entries its objects' values make.
    mutating func checkIndexes(of table: Table) throws {
        for (column, tree) in table.indexes.sorted(by: { $0.key < $1.key }) {
            let name = "index '\(table.name).\(table.property(column)?.name ?? "column \(column)")'"
            var expected: [[UInt8]] = []
            try source.forEachCluster(in: root(table.tree)) { leaf in
                for row in 0..<leaf.count {
                    let value = try source.value(leaf, row: row, column: column, spec: table.layout[column])
                    for encoded in table.indexValues(value, column: column) {
                        expected.append(IndexKey.key(encoded, objectKey: leaf.key(row)))
                    }
                }
                return true
            }
            expected.sort { $0.lexicographicallyPrecedes($1) }  // memcmp order, as the index's
            var next = 0
            var extra = 0, firstExtra: [UInt8]?
            try source.indexScan(root(tree), from: UnsafeRawBufferPointer(start: nil, count: 0)) { entry in
                while next < expected.count, expected[next].lexicographicallyPrecedes(entry) {
                    report("\(name) lacks the entry of object \(Self.objectKey(expected[next])) (\(expected[next].count) bytes)")
                    next += 1
                }
                if next < expected.count, expected[next].elementsEqual(entry) {
                    next += 1
                } else {
                    extra += 1
                    if firstExtra == nil { firstExtra = Array(entry) }
                }
                return true
            }
            for missing in expected[next...] {
                report("\(name) lacks the entry of object \(Self.objectKey(missing)) (\(missing.count) bytes)")
            }
            if let firstExtra {
                report("\(name) holds \(extra) entries no object has (the first of \(firstExtra.count) bytes, for object \(Self.objectKey(firstExtra)))")
            }
        }
    }

    /// The object key at the end of an index entry, in words ("?" if it has none).
    private static func objectKey(_ entry: [UInt8]) -> String {
        for valueLength in stride(from: entry.count - 1, through: max(0, entry.count - 9), by: -1) {
            if let key = entry.withUnsafeBytes({ IndexKey.objectKey(of: $0, valueLength: valueLength) }) { return "\(key)" }
        }
        return "?"
    }
}
