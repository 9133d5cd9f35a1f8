import Foundation
package import RealmStorage

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
