import Foundation
package import RealmStorage

/// A table as recorded in the file: the class's live properties, every physical column (removed
/// properties keep their column so later columns never move), and the trees that hold it.
package struct StoredTable: Codable, Sendable, Equatable {
    package var schema: ObjectSchemaInfo
    /// All physical columns in order; `nil` marks a column whose property was removed.
    package var columns: [PropertyInfo?]
    package var tree: TreeID
    /// Index trees by property name (indexed properties and non-integer primary keys).
    package var indexes: [String: TreeID]
}

/// Everything the object store keeps about the schema, stored as JSON under key 0 of the
/// metadata tree (tree id 1, created with the file's first schema).
package struct StoredSchema: Codable, Sendable, Equatable {
    package var version: UInt64
    package var tables: [StoredTable]

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

    package init(_ stored: StoredTable) {
        self.stored = stored
        layout = stored.columns.map { $0?.columnSpec ?? ColumnSpec(.int, nullable: true) }
        var columns: [String: Int] = [:]
        for (index, property) in stored.columns.enumerated() { if let property { columns[property.name] = index } }
        self.columns = columns
        let key = stored.schema.primaryKey
        primaryKeyColumn = key.flatMap { columns[$0.name] }
        primaryKeyIsObjectKey = key?.kind == .int
        var indexes: [Int: TreeID] = [:]
        for (name, tree) in stored.indexes { if let column = columns[name] { indexes[column] = tree } }
        self.indexes = indexes
    }

    package func property(_ column: Int) -> PropertyInfo? { stored.columns[column] }
}

/// The tables of one schema version, by class name.
package final class SchemaCatalog: Sendable {
    package let stored: StoredSchema
    package let tables: [String: Table]

    package init(_ stored: StoredSchema) {
        self.stored = stored
        tables = Dictionary(uniqueKeysWithValues: stored.tables.map { ($0.schema.className, Table($0)) })
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
        for property in schema.properties where property.isIndexed || (property.isPrimaryKey && property.kind != .int) {
            indexes[property.name] = try createTree()
        }
        return StoredTable(schema: schema, columns: schema.properties, tree: tree, indexes: indexes)
    }
}
