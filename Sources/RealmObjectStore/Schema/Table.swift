import Foundation
package import RealmStorage

/// A table as recorded in the file: the class's live properties, every physical column (removed
/// properties keep their column so later columns never move), and the trees that hold it.
package struct StoredTable: Codable, Sendable, Equatable {
    package var schema: ObjectSchemaInfo
    /// All physical columns in order; `nil` marks a column whose property was removed.
    package var columns: [PropertyInfo?]
    package var tree: TreeID
    /// Index trees by property name (see ``PropertyInfo/hasIndexTree``).
    package var indexes: [String: TreeID]
}

/// Everything the object store keeps about the schema, stored as JSON under key 0 of the
/// metadata tree (tree id 1, created with the file's first schema).
package struct StoredSchema: Codable, Sendable, Equatable {
    package var version: UInt64
    package var tables: [StoredTable]

    package init(version: UInt64, tables: [StoredTable]) {
        self.version = version
        self.tables = tables
    }

    package static let metadataTree: TreeID = 1
    static let schemaKey: UInt64 = 0
}

/// The object store's view of one table at one schema: where every property lives.
///
/// Immutable and `Sendable`; rebuilt whenever the schema changes.
package final class Table: Sendable {
    package let stored: StoredTable
    package var schema: ObjectSchemaInfo { stored.schema }
    package var name: String { stored.schema.className }
    package var tree: TreeID { stored.tree }
    /// The storage layout of every physical column.
    package let layout: [ColumnSpec]
    /// Physical column of each live property.
    package let columns: [String: Int]
    package let primaryKeyColumn: Int?
    /// Index tree of each indexed physical column.
    package let indexes: [Int: TreeID]
    /// Integer primary keys are the object keys themselves, so a lookup by key is a tree descent.
    package let primaryKeyIsObjectKey: Bool
    /// Whether any property links or is a collection (their values are written after the row).
    package let hasLinksOrCollections: Bool

    package init(_ stored: StoredTable) {
        self.stored = stored
        layout = stored.columns.map { $0?.columnSpec ?? ColumnSpec(.int, nullable: true) }
        var columns: [String: Int] = [:]
        for (index, property) in stored.columns.enumerated() { if let property { columns[property.name] = index } }
        self.columns = columns
        let key = stored.schema.primaryKey
        primaryKeyColumn = key.flatMap { columns[$0.name] }
        primaryKeyIsObjectKey = key?.kind == .int
        hasLinksOrCollections = stored.columns.contains { $0.map { $0.canLink || $0.collection != nil } ?? false }
        var indexes: [Int: TreeID] = [:]
        for (name, tree) in stored.indexes { if let column = columns[name] { indexes[column] = tree } }
        self.indexes = indexes
    }

    package func property(_ column: Int) -> PropertyInfo? { stored.columns[column] }

    /// The encoded values under which an object with `value` in `column` is indexed (each is
    /// followed by the object key in the index): the value itself for indexed properties and
    /// primary keys; for link properties, each distinct object linked to (a nil link has none),
    /// so that the index answers "who links to object k" — backlinks.
    package func indexValues(_ value: ColumnValue, column: Int) -> [[UInt8]] {
        guard let property = stored.columns[column] else { return [] }
        guard property.canLink else {
            return [(try? IndexKey.encode(value, layout[column], kind: property.kind)) ?? IndexKey.null()]
        }
        var keys: [[UInt8]] = []
        func add(_ element: ColumnValue) {
            switch (property.kind, element) {
            case (.object, .int(let key)): keys.append(IndexKey.int(key))
            case (.mixed, _): if let key = MixedValue(stored: element).linkIndexKey { keys.append(key) }
            default: break
            }
        }
        switch (property.collection, value) {
        case (nil, _): add(value)
        case (.map?, .bytes(let bytes)): for (_, element) in PackedCollection.entries(PackedCollection.decode(bytes)) { add(element) }
        case (_, .bytes(let bytes)): for element in PackedCollection.decode(bytes) { add(element) }
        default: break
        }
        return Array(Set(keys))
    }

    /// The encoded value under which `indexValues` files a link to object `key` of `target`.
    package func linkIndexValue(column: Int, to key: UInt64, in target: Table) -> [UInt8] {
        stored.columns[column]?.kind == .mixed
            ? MixedValue.link(table: target.tree, key: key).linkIndexKey!
            : IndexKey.int(Int64(bitPattern: key))
    }

    /// `value` (of `column`) with every link to object `key` of `target` removed: a to-one link
    /// becomes nil, list and set elements are removed, map values become nil, as in Realm.
    package func unlinking(_ value: ColumnValue, column: Int, from key: UInt64, in target: Table) -> ColumnValue {
        guard let property = stored.columns[column] else { return value }
        func isLink(_ element: ColumnValue) -> Bool {
            property.kind == .mixed
                ? MixedValue(stored: element) == .link(table: target.tree, key: key)
                : element == .int(Int64(bitPattern: key))
        }
        switch (property.collection, value) {
        case (nil, _):
            return isLink(value) ? .null : value
        case (.map?, .bytes(let bytes)):
            let entries = PackedCollection.entries(PackedCollection.decode(bytes)).map { entry in
                (key: entry.key, value: isLink(entry.value) ? ColumnValue.null : entry.value)
            }
            return .bytes(PackedCollection.encode(PackedCollection.mapElements(entries)))
        case (_, .bytes(let bytes)):
            return .bytes(PackedCollection.encode(PackedCollection.decode(bytes).filter { !isLink($0) }))
        default:
            return value
        }
    }

    /// The object keys a value of a link column refers to, in order (for cascading deletes of
    /// embedded objects).
    package func linkedKeys(_ value: ColumnValue, column: Int) -> [UInt64] {
        guard let property = stored.columns[column], property.kind == .object else { return [] }
        let elements: [ColumnValue]
        switch (property.collection, value) {
        case (nil, _): elements = [value]
        case (.map?, .bytes(let bytes)): elements = PackedCollection.entries(PackedCollection.decode(bytes)).map(\.value)
        case (_, .bytes(let bytes)): elements = PackedCollection.decode(bytes)
        default: elements = []
        }
        return elements.compactMap { if case .int(let key) = $0 { UInt64(bitPattern: key) } else { nil } }
    }
}

/// The tables of one schema version, by class name.
package final class SchemaCatalog: Sendable {
    package let stored: StoredSchema
    package let tables: [String: Table]

    /// Per class name, the link columns that may point at its objects: `(table, column)` of every
    /// `.object` property targeting it and of every `AnyRealmValue` property.
    package let inboundLinks: [String: [(table: Table, column: Int)]]
    /// Per class name, whether its objects are embedded (owned by the object linking to them).
    package let embeddedClasses: Set<String>

    package init(_ stored: StoredSchema) {
        self.stored = stored
        let tables = Dictionary(uniqueKeysWithValues: stored.tables.map { ($0.schema.className, Table($0)) })
        self.tables = tables
        var inbound: [String: [(table: Table, column: Int)]] = [:]
        let mixed = tables.values.flatMap { table in
            table.columns.values.filter { table.property($0)?.kind == .mixed }.map { (table: table, column: $0) }
        }
        for table in tables.values {
            for column in table.columns.values.sorted() {
                guard let property = table.property(column), property.kind == .object, let target = property.objectClassName else { continue }
                inbound[target, default: []].append((table, column))
            }
        }
        for name in tables.keys { inbound[name, default: []] += mixed }
        inboundLinks = inbound
        embeddedClasses = Set(stored.tables.filter(\.schema.isEmbedded).map(\.schema.className))
    }

    package static let empty = SchemaCatalog(StoredSchema(version: 0, tables: []))
    package var version: UInt64 { stored.version }
}

extension PageSource {
    /// The schema recorded in this version, or nil for a file that has none yet.
    package func storedSchema() throws -> StoredSchema? {
        let catalog: TreeRoot
        if let read = self as? ReadTransaction {
            guard try read.treeIDs().contains(StoredSchema.metadataTree) else { return nil }
            catalog = try read.root(of: StoredSchema.metadataTree)
        } else if let write = self as? WriteTransaction {
            guard try write.treeIDs().contains(StoredSchema.metadataTree) else { return nil }
            catalog = try write.root(of: StoredSchema.metadataTree)
        } else {
            return nil
        }
        return try withValue(in: catalog, forKey: StoredSchema.schemaKey) { bytes in
            do {
                return try JSONDecoder().decode(StoredSchema.self, from: Data(bytes))
            } catch {
                throw StorageError(.invalidDatabase, "The realm file's schema record is unreadable: \(error)")
            }
        }
    }
}

extension WriteTransaction {
    /// Creates the metadata tree if the file has none yet. It must be the file's first tree, so
    /// every table creation calls this before creating its own trees.
    private func ensureMetadataTree() throws {
        guard try !treeIDs().contains(StoredSchema.metadataTree) else { return }
        let id = try createTree()
        guard id == StoredSchema.metadataTree else {
            throw StorageError(.invalidDatabase, "The realm file has trees but no schema record")
        }
    }

    /// Records the schema.
    package func writeSchema(_ schema: StoredSchema) throws {
        try ensureMetadataTree()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try put(StoredSchema.metadataTree, key: StoredSchema.schemaKey, value: Array(try encoder.encode(schema)))
    }

    /// Creates the trees of a new table.
    package func createTable(_ schema: ObjectSchemaInfo) throws -> StoredTable {
        try schema.validate()
        try ensureMetadataTree()
        let tree = try createTree()
        var indexes: [String: TreeID] = [:]
        for property in schema.properties where property.hasIndexTree {
            indexes[property.name] = try createTree()
        }
        return StoredTable(schema: schema, columns: schema.properties, tree: tree, indexes: indexes)
    }
}
