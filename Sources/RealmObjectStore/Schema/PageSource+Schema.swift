import Foundation
package import RealmStorage

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
        return try withValue(in: catalog, forKey: StoredSchema.schemaKey) { bytes in try StoredSchema.decode(bytes) }
    }
}
