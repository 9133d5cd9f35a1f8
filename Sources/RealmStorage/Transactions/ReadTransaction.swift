/// A read-only view of one committed version.
///
/// It pins its version: pages that later commits free stay untouched until every read transaction
/// on that version (and older) is gone. Reads take no lock: they follow pointers into the mapped
/// file, whose pages for this version never change.
///
/// `Sendable`: immutable, and the pages it reads are never written while it exists.
package final class ReadTransaction: PageSource, Sendable {
    package let database: Database
    package let meta: MetaPage
    /// `database.map.addressing`, copied: a page read touches no reference count.
    private let pages: PageAddressing

    init(database: Database, meta: MetaPage) {
        self.database = database
        self.meta = meta
        pages = database.map.addressing
    }

    deinit { database.unpin(meta.transaction) }

    /// The version this transaction reads.
    package var transaction: TransactionID { meta.transaction }
    package var pageLimit: UInt64 { meta.pageCount }

    @inline(__always)
    package func page(_ number: PageNumber) -> UnsafeRawPointer { pages.pointer(number) }

    /// The root of a tree in this version; throws if there is no such tree.
    package func root(of id: TreeID) throws -> TreeRoot {
        guard let root = try withValue(in: meta.catalog, forKey: id, CatalogEntry.decode) else {
            throw StorageError(.invalidInput, "No tree with id \(id)")
        }
        return root
    }

    /// The ids of every tree, in order.
    package func treeIDs() throws -> [TreeID] {
        var ids: [TreeID] = []
        try forEach(in: meta.catalog) { key, _ in ids.append(key); return true }
        return ids
    }

    /// The number of entries in a tree. O(1).
    package func count(of id: TreeID) throws -> UInt64 { try root(of: id).count }

    /// A copy of the value under `key`.
    package func value(_ id: TreeID, key: UInt64) throws -> [UInt8]? {
        try withValue(in: root(of: id), forKey: key) { Array($0) }
    }
}
