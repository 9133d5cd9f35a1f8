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
