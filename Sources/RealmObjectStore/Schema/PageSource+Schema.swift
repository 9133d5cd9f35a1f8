import Foundation
package import RealmStorage

extension PageSource {
    /// The schema recorded in this version, or nil for a file that has none yet.
    ///
    /// - Throws: `invalidDatabase` if the record is not a valid schema (`StoredSchema.decode`),
    ///   or, in a committed version, names a table tree the version does not have (a write
    ///   transaction may be between dropping a table's tree and recording the schema without it).
    package func storedSchema() throws -> StoredSchema? {
        let trees: Set<TreeID>, catalog: TreeRoot, committed: Bool
        if let read = self as? ReadTransaction {
            trees = Set(try read.treeIDs())
            guard trees.contains(StoredSchema.metadataTree) else { return nil }
            (catalog, committed) = (try read.root(of: StoredSchema.metadataTree), true)
        } else if let write = self as? WriteTransaction {
            trees = Set(try write.treeIDs())
            guard trees.contains(StoredSchema.metadataTree) else { return nil }
            (catalog, committed) = (try write.root(of: StoredSchema.metadataTree), false)
        } else {
            return nil
        }
        let schema = try withValue(in: catalog, forKey: StoredSchema.schemaKey) { bytes in try StoredSchema.decode(bytes) }
        if committed, let table = schema?.tables.first(where: { !trees.contains($0.tree) }) {
            throw StorageError(.invalidDatabase,
                               "The realm file's schema record is damaged: the table of '\(table.schema.className)' is on tree \(table.tree), which does not exist")
        }
        return schema
    }
}
