/// The root of one committed version: the content of meta page 0 or 1.
///
/// The file has two meta pages; a commit writes its meta into the one that does *not* hold the
/// newest durable version, in the same batch and the same sync as its data pages. Opening picks
/// the newer valid meta, and if the pages its batch wrote do not all verify (a crash during the
/// sync), falls back to the other one. See `FORMAT.md`.
///
/// Layout after the page header (kind `.meta`):
///
/// | offset | size | field |
/// |---|---|---|
/// | 24 | 8 | magic `"RLMACTR\0"` |
/// | 32 | 4 | format version |
/// | 36 | 4 | page size |
/// | 40 | 8 | transaction id of this version |
/// | 48 | 8 | durable base: the newest transaction known durable when this batch was written |
/// | 56 | 8 | page count (file length in pages that this version uses) |
/// | 64 | 24 | catalog tree root (page, transaction, entry count) |
/// | 88 | 16 | free-list chain head (page, transaction) |
/// | 104 | 8 | file id: random, chosen when the file is created (0 in files created before it existed) |
/// | 112 | 24 | format 9 only: replication slots tree root (page, transaction, entry count) |
/// | 136 | 24 | format 9 only: change records tree root (page, transaction, entry count) |
/// | 160 | 8 | format 9 only: the pages the change records keep out of the free list |
/// | 168 | 8 | format 9 only: recorded pages — the pages change records have retained in all, never decreasing |
///
/// A version with no replication slot and no change record is written as format 8, one with
/// either as format 9, which a library without replication would refuse as newer — it would
/// neither write change records nor keep the versions slots retain. Formats 8 and 9 are 5 and 7
/// with free-list entries that keep the versions seeing each run (``FreeListChain``); 5 to 7
/// were written only by development versions, and are refused (see ``obsoleteFormatMessage(_:)``).
package struct MetaPage: Equatable, Sendable {
    package static let magic: UInt64 = 0x0052_5443_414D_4C52  // "RLMACTR\0" little-endian
    /// The newest format this library reads and writes (9: with replication; see above). Files
    /// of a higher version are refused as newer; versions 1 to 7 (development versions: see
    /// FORMAT.md) are refused as unsupported rather than misread: no release wrote them.
    package static let formatVersion: UInt32 = 9
    /// The format of a version without replication.
    package static let formatWithoutReplication: UInt32 = 8

    /// Why a file of an obsolete format `version` (below ``formatWithoutReplication``) is refused.
    static func obsoleteFormatMessage(_ version: UInt32) -> String {
        "The realm file was written by an older development version of RealmActors (format \(version)); this version reads formats \(formatWithoutReplication) and \(formatVersion) — no release wrote format \(version), so it is not converted: dump it with the version that wrote it (realm-inspect dump) and load the dump with this one (realm-inspect load), or delete it"
    }

    package var transaction: TransactionID
    package var durableBase: TransactionID
    package var pageCount: UInt64
    package var catalog: TreeRoot
    package var freeList: ChainHead
    /// Names the file (not a version): every meta of a file carries the id chosen when it was
    /// created, and a copy or compaction gets its own. The write-ahead log records it, so that
    /// its records are never replayed onto another file (see `WriteAheadLog`).
    package var fileID: UInt64 = 0
    /// The replication slots (see ``ReplicationSlot``): a value tree, empty without slots.
    package var slots: TreeRoot = .empty
    /// The change records kept for slots (see ``ChangeRecord``): a value tree keyed by
    /// transaction, empty when no slot needs one.
    package var changeRecords: TreeRoot = .empty
    /// The pages of older versions the change records keep (``ChangeRecord``'s retained runs):
    /// neither reachable from this version nor free.
    package var retainedPages: UInt64 = 0
    /// The pages change records have retained in all, since the file last had no replication
    /// state: grows by each record's retained pages, never decreases (freeing a record does not
    /// lower it). A slot's retained pages are its growth since the slot's position (see
    /// ``ReplicationSlot/recordedAtPosition``).
    package var recordedPages: UInt64 = 0

    /// Whether the version has replication state, and so is written as format 9.
    package var hasReplication: Bool { !slots.isEmpty || !changeRecords.isEmpty }

    /// The format this version is written in: 9 with replication state, else 8.
    package var version: UInt32 { hasReplication ? Self.formatVersion : Self.formatWithoutReplication }

    /// Encodes into a zeroed page buffer and seals it.
    package func encode(into page: UnsafeMutableRawPointer) {
        page.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        page.initializePageHeader(kind: .meta, transaction: transaction)
        page.setU64(24, Self.magic)
        page.setU32(32, version)
        page.setU32(36, UInt32(PageLayout.pageSize))
        page.setU64(40, transaction)
        page.setU64(48, durableBase)
        page.setU64(56, pageCount)
        page.setU64(64, catalog.page)
        page.setU64(72, catalog.transaction)
        page.setU64(80, catalog.count)
        page.setU64(88, freeList.page)
        page.setU64(96, freeList.transaction)
        page.setU64(104, fileID)
        if hasReplication {
            page.setU64(112, slots.page)
            page.setU64(120, slots.transaction)
            page.setU64(128, slots.count)
            page.setU64(136, changeRecords.page)
            page.setU64(144, changeRecords.transaction)
            page.setU64(152, changeRecords.count)
            page.setU64(160, retainedPages)
            page.setU64(168, recordedPages)
        }
        PageChecksum.seal(page, length: PageLayout.pageSize)
    }

    /// Why a meta page was rejected.
    package enum DecodeFailure: Error, Equatable {
        case notARealmFile
        case futureFormat(UInt32)
        case obsoleteFormat(UInt32)
        case unsupportedPageSize(UInt32)
        case badChecksum
        case inconsistent(String)
    }

    /// Decodes and validates a meta page. Never traps on arbitrary bytes.
    package static func decode(_ page: UnsafeRawPointer) -> Result<MetaPage, DecodeFailure> {
        guard page.u64(24) == magic, page.pageKind == .meta else { return .failure(.notARealmFile) }
        let version = page.u32(32)
        guard version <= formatVersion else { return .failure(.futureFormat(version)) }
        guard version >= formatWithoutReplication else { return .failure(.obsoleteFormat(version)) }
        guard PageChecksum.isValid(page, length: PageLayout.pageSize) else { return .failure(.badChecksum) }
        guard page.u32(36) == UInt32(PageLayout.pageSize) else {
            return .failure(.unsupportedPageSize(page.u32(36)))
        }
        var meta = MetaPage(
            transaction: page.u64(40),
            durableBase: page.u64(48),
            pageCount: page.u64(56),
            catalog: TreeRoot(page: page.u64(64), transaction: page.u64(72), count: page.u64(80)),
            freeList: ChainHead(page: page.u64(88), transaction: page.u64(96)),
            fileID: page.u64(104)
        )
        if version == formatVersion {
            meta.slots = TreeRoot(page: page.u64(112), transaction: page.u64(120), count: page.u64(128))
            meta.changeRecords = TreeRoot(page: page.u64(136), transaction: page.u64(144), count: page.u64(152))
            meta.retainedPages = page.u64(160)
            meta.recordedPages = page.u64(168)
        }
        guard meta.transaction == page.pageTransaction, meta.isConsistent
        else { return .failure(.inconsistent("meta page fields out of range")) }
        return .success(meta)
    }

    /// Whether the fields agree with each other: roots inside the version's pages, counts in
    /// range. What a meta page's decoding checks, and what a version published by another process
    /// must pass before it is adopted (`LockFile+Versions.swift`).
    package var isConsistent: Bool {
        durableBase <= transaction && pageCount >= PageLayout.firstDataPage
            && catalog.page < pageCount && freeList.page < pageCount
            && slots.page < pageCount && changeRecords.page < pageCount
            && retainedPages < pageCount && retainedPages <= recordedPages
    }
}

/// Where a tree starts: its root page and the transaction that wrote it (`page == 0`: empty tree),
/// and how many entries the tree holds, so `count` is O(1).
package struct TreeRoot: Equatable, Sendable {
    package var page: PageNumber
    package var transaction: TransactionID
    package var count: UInt64

    package static let empty = TreeRoot(page: 0, transaction: 0, count: 0)
    package var isEmpty: Bool { page == 0 }
}

/// The head of a page chain (the free list): first page and the transaction that wrote it.
package struct ChainHead: Equatable, Sendable {
    package var page: PageNumber
    package var transaction: TransactionID
    package static let none = ChainHead(page: 0, transaction: 0)
}
