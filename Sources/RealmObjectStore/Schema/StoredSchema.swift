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

    /// The schema record's JSON, decoded and checked for what the tables built from it rely on:
    /// one table per class name, each on a tree of its own that is not the metadata tree. A
    /// record that is not such a schema (damaged, or written by something else) is an
    /// `invalidDatabase` error, never a trap in `SchemaCatalog`.
    package static func decode(_ bytes: some Collection<UInt8>) throws -> StoredSchema {
        let schema: StoredSchema
        do {
            schema = try JSONDecoder().decode(StoredSchema.self, from: Data(bytes))
        } catch {
            throw StorageError(.invalidDatabase, "The realm file's schema record is unreadable: \(error)")
        }
        var names = Set<String>(), trees: Set<TreeID> = [metadataTree]
        for table in schema.tables where !names.insert(table.schema.className).inserted {
            throw StorageError(.invalidDatabase, "The realm file's schema record is damaged: class '\(table.schema.className)' appears twice")
        }
        for table in schema.tables {
            guard trees.insert(table.tree).inserted else {
                throw StorageError(.invalidDatabase, "The realm file's schema record is damaged: the table of '\(table.schema.className)' is on tree \(table.tree), which holds something else")
            }
        }
        return schema
    }
}
