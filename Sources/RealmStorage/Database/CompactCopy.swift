#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A version whose trees can be copied: a read transaction (a committed version) or a write
/// transaction (the version it is building, uncommitted changes included).
package protocol TreeSource: PageSource {
    /// The ids of every tree, in order.
    func treeIDs() throws -> [TreeID]
    /// A tree's root.
    func root(of id: TreeID) throws -> TreeRoot
}

extension ReadTransaction: TreeSource {}
extension WriteTransaction: TreeSource {}

/// Writing a compacted copy of one version into a new file: what `writeCopy` and compaction do.
///
/// The copy is *logical*: every tree is rebuilt in a fresh file, under the same id, from its
/// entries in key order — table rows (with their keys and every column), index keys, values. So
/// the copy holds exactly the version's content, in as few pages as key-order appends fill
/// (leaves packed full, no free pages, nothing of older versions), and it is checked as it is
/// read: a damaged page in the source fails the copy instead of being carried over. Object keys
/// are kept, so links and every id the object store recorded stay valid.
///
/// Crash safety: the copy is written under a temporary name and made durable (its commit synced)
/// before it is put in place, so a crash leaves the destination either absent (or, for a
/// compaction, the old file) or complete — never a partial file under the final name.
extension Database {
    /// Writes a compacted copy of `source` to a new file at `path`, which must not exist.
    /// `tables` gives the column layout of every table tree (tables are rebuilt row by row,
    /// and only the object store knows their columns); every other tree is copied as a value or
    /// index tree, as its pages say. With `replacing`, an existing file at `path` is replaced
    /// atomically (a rename), which is how a file is compacted in place. The copy is encrypted
    /// with `encryptionKey` (a fresh salt, so fresh page keys) or, without one, not encrypted,
    /// whether or not the source is: this is how a file is encrypted, decrypted or re-keyed.
    /// `invalidatedSlots` are kept in the copy (``WriteTransaction/adoptInvalidatedSlots(_:)``):
    /// a compaction of a file whose slots retain nothing.
    ///
    /// - Throws: `.fileExists` if `path` exists (unless replacing); `.invalidDatabase` if the
    ///   source is damaged, or a table tree has no layout; what writing and syncing throw.
    package static func writeCompactCopy(of source: some TreeSource, tables: [TreeID: [ColumnSpec]],
                                         to path: String, replacing: Bool = false, encryptionKey: [UInt8]? = nil,
                                         invalidatedSlots: [ReplicationSlot] = []) throws {
        if !replacing && access(path, F_OK) == 0 {
            throw StorageError(.fileExists, "A file already exists at the destination of the copy", path: path)
        }
        let temporary = path + AuxiliaryFile.copying.suffix
        unlink(temporary)
        unlink(path + AuxiliaryFile.copyingLock.suffix)
        defer {
            unlink(temporary)
            unlink(path + AuxiliaryFile.copyingLock.suffix)
        }
        do {
            let copy = try Database.open(path: temporary, options: DatabaseOptions(encryptionKey: encryptionKey, writeAheadLog: false))
            let write = try copy.beginWrite()
            try write.copyTrees(of: source, tables: tables)
            if !invalidatedSlots.isEmpty { try write.adoptInvalidatedSlots(invalidatedSlots) }
            try write.commit()
            try copy.close()
        }
        if replacing {
            // The replaced file's log (empty: the caller checkpointed it and holds the lock file)
            // goes with it, so the new file starts a log of its own.
            unlink(path + AuxiliaryFile.log.suffix)
            guard rename(temporary, path) == 0 else { throw StorageError.fromErrno(errno, "Could not replace the realm file with its copy", path: path) }
        } else {
            // A link never replaces a file that appeared meanwhile.
            guard link(temporary, path) == 0 else { throw StorageError.fromErrno(errno, "Could not write the copy", path: path) }
        }
        syncDirectory(of: path)
    }
}

extension WriteTransaction {
    /// Rebuilds every tree of `source` in this transaction, which must hold no trees yet, under
    /// the same ids, entries in key order (see ``Database/writeCompactCopy(of:tables:to:replacing:)``).
    package func copyTrees(of source: some TreeSource, tables: [TreeID: [ColumnSpec]]) throws {
        for id in try source.treeIDs() {
            try createTree(id: id)
            let root = try source.root(of: id)
            guard !root.isEmpty else { continue }
            switch try source.leafKind(of: root) {
            case .cluster:
                guard let layout = tables[id] else {
                    throw StorageError(.invalidDatabase, "Table tree \(id) is not in the schema; the copy would lose it")
                }
                var values = [ColumnValue](repeating: .null, count: layout.count)
                try source.forEachCluster(in: root) { leaf in
                    for row in 0..<leaf.count {
                        for column in layout.indices {
                            values[column] = try source.value(leaf, row: row, column: column, spec: layout[column])
                        }
                        try insertRow(id, key: leaf.key(row), values: values, layout: layout)
                    }
                    return true
                }
            case .indexLeaf:
                try source.indexScan(root, from: UnsafeRawBufferPointer(start: nil, count: 0)) { key in
                    try indexInsert(id, key: Array(key))
                    return true
                }
            default:
                try source.forEach(in: root) { key, value in
                    _ = try put(id, key: key, value: value)
                    return true
                }
            }
        }
    }
}

extension PageSource {
    /// The kind of a tree's leaves (value, table or index), from its leftmost path.
    func leafKind(of root: TreeRoot) throws -> PageKind {
        var number = root.page
        var transaction = root.transaction
        for _ in 0..<maximumTreeDepth {
            guard number >= PageLayout.firstDataPage, number < pageLimit else { break }
            let base = page(number)
            try checkTransaction(base, number, expected: transaction)
            switch base.pageKind {
            case let kind? where kind == .leaf || kind == .cluster || kind == .indexLeaf: return kind
            case .inner?: (number, transaction) = (InnerNode(base).child(0), InnerNode(base).childTransaction(0))
            case .indexInner?: (number, transaction) = (IndexPage(base).child(0), IndexPage(base).childTransaction(0))
            default: throw StorageError(.invalidDatabase, "Realm file is damaged: page \(number) is not a tree page")
            }
        }
        throw StorageError(.invalidDatabase, "Realm file is damaged: bad tree page \(number)")
    }
}
