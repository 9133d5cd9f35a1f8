/// The byte layout of the write-ahead log `<file>.log` (see `FORMAT.md`, "Write-ahead log"):
/// a header page, then records, each starting on a page boundary.
///
/// Pure encoding and decoding, no I/O: ``WriteAheadLog`` does the reading and writing.
///
/// **Header** (page 0; bytes 64..<4096 zero):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | code of bytes 8..<64 (``Sealing``) |
/// | 8 | 8 | magic `"RLMALOG\0"` |
/// | 16 | 4 | log format version (1) |
/// | 20 | 4 | page size (4096) |
/// | 24 | 8 | salt of the current generation |
/// | 32 | 16 | the data file's identity: device, inode |
/// | 48 | 8 | *base*: the newest transaction the data file held durably when the generation began |
/// | 56 | 8 | the data file's id (its meta pages' file id; 0 for a file without one) |
///
/// **Record**: `headerPages` pages of record header, then the images, in entry order:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | code of bytes 8..<`64 + 24 × entries` (``Sealing``) |
/// | 8 | 8 | magic `"RLMAREC\0"` |
/// | 16 | 8 | salt (the header's, when written) |
/// | 24 | 8 | sequence number within the generation, from 0 |
/// | 32 | 8 | transaction of the batch's meta page |
/// | 40 | 4 | entry count |
/// | 44 | 4 | header pages |
/// | 48 | 8 | image pages (the sum of the entries' page counts) |
/// | 56 | 8 | page count of the batch's version: the data file's length in pages |
/// | 64 + 24 *i* | 24 | entry *i*: page number, page count, transaction stamped on the image |
enum LogLayout {
    /// What seals the log's header and record headers: a checksum, which detects torn and stale
    /// bytes; in an encrypted file, a keyed MAC (``PageCipher/authenticationCode(label:for:)``),
    /// so that someone without the key can neither forge a header that makes recovery replay
    /// old authentic images (a record of an earlier generation with this one's salt) nor
    /// rewrite a record's entries. Either covers bytes 8..<length and is stored at 0..<8.
    enum Sealing {
        case checksum
        case keyed(PageCipher)

        init(_ cipher: PageCipher?) { self = cipher.map { .keyed($0) } ?? .checksum }

        /// The code of bytes 8..<`length` of `bytes`; `label` separates the header's domain
        /// from the records'.
        func code(_ bytes: UnsafeRawPointer, length: Int, label: StaticString) -> UInt64 {
            switch self {
            case .checksum: PageChecksum.compute(bytes, length: length)
            case .keyed(let cipher): cipher.authenticationCode(label: label, for: UnsafeRawBufferPointer(start: bytes + 8, count: length - 8))
            }
        }

        /// Whether bytes 0..<8 hold the code of bytes 8..<`length` (constant time when keyed).
        func isValid(_ bytes: UnsafeRawPointer, length: Int, label: StaticString) -> Bool {
            let expected = code(bytes, length: length, label: label)
            let actual = bytes.u64(0)
            return withUnsafeBytes(of: expected) { a in withUnsafeBytes(of: actual) { b in ConstantTime.equals(a, b) } }
        }
    }
    static let headerLabel: StaticString = "RealmActors log header"
    static let recordLabel: StaticString = "RealmActors log record"

    static let headerMagic: UInt64 = 0x00_474F_4C41_4D4C_52  // "RLMALOG\0" little-endian
    static let recordMagic: UInt64 = 0x00_4345_5241_4D4C_52  // "RLMAREC\0" little-endian
    static let version: UInt32 = 1
    static let headerBytes = 64
    static let entryBytes = 24
    /// Where the first record starts.
    static let firstRecordOffset = UInt64(PageLayout.pageSize)
    /// A page number beyond any file (2^40 pages is 4 PiB): an entry above it is damage.
    static let pageNumberLimit: UInt64 = 1 << 40

    /// The data file a log belongs to: a log found beside a file that has since been replaced
    /// (a compaction's rename, a restored backup) describes another file and is never replayed
    /// onto this one.
    struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// One image of a record: a page or run of the data file as it is stored there.
    struct Entry: Equatable {
        var page: PageNumber
        var pages: UInt64
        var transaction: TransactionID
    }

    /// What a log header says.
    struct Header: Equatable {
        var salt: UInt64
        var identity: FileIdentity
        var base: TransactionID
        var fileID: UInt64
    }

    /// What a record header says.
    struct RecordHeader: Equatable {
        var salt: UInt64
        var sequence: UInt64
        var transaction: TransactionID
        /// The data file's length in pages at the batch's version (its meta's page count):
        /// replay grows the file to it, since the growth itself may not have been durable.
        var pageCount: UInt64
        var entries: [Entry]

        /// Pages the header takes: 64 bytes plus 24 per entry, rounded up to whole pages.
        static func pages(forEntries count: Int) -> Int {
            (headerBytes + entryBytes * count + PageLayout.pageSize - 1) / PageLayout.pageSize
        }
        var headerPages: Int { Self.pages(forEntries: entries.count) }
        var imagePages: UInt64 { entries.reduce(0) { $0 + $1.pages } }

        /// Calls `body` with each entry and where its image starts in `images` (the record's
        /// images, back to back in entry order), with the image's length in bytes; stops at the
        /// first false.
        @discardableResult
        func forEachImage(in images: UnsafeRawPointer, _ body: (Entry, UnsafeRawPointer, Int) throws -> Bool) rethrows -> Bool {
            var position = 0
            for entry in entries {
                let length = Int(entry.pages) * PageLayout.pageSize
                guard try body(entry, images + position, length) else { return false }
                position += length
            }
            return true
        }
    }

    /// Encodes the log header into `page` (a zeroed page).
    static func encodeHeader(_ header: Header, into page: UnsafeMutableRawPointer, sealing: Sealing) {
        page.initializeMemory(as: UInt8.self, repeating: 0, count: PageLayout.pageSize)
        page.setU64(8, headerMagic)
        page.setU32(16, version)
        page.setU32(20, UInt32(PageLayout.pageSize))
        page.setU64(24, header.salt)
        page.setU64(32, header.identity.device)
        page.setU64(40, header.identity.inode)
        page.setU64(48, header.base)
        page.setU64(56, header.fileID)
        page.setU64(0, sealing.code(UnsafeRawPointer(page), length: headerBytes, label: headerLabel))
    }

    /// A log header, or nil if it is not a valid one (torn, foreign, or of another log format
    /// version).
    static func decodeHeader(_ page: UnsafeRawPointer, sealing: Sealing) -> Header? {
        guard page.u64(8) == headerMagic, page.u32(16) == version, page.u32(20) == UInt32(PageLayout.pageSize),
              sealing.isValid(page, length: headerBytes, label: headerLabel)
        else { return nil }
        return Header(salt: page.u64(24), identity: FileIdentity(device: page.u64(32), inode: page.u64(40)),
                      base: page.u64(48), fileID: page.u64(56))
    }

    /// What the data file's two meta pages say before recovery: the newest valid one's
    /// transaction, the file id, and whether a slot fails to decode (torn, as a crash can leave
    /// an unsynced meta write).
    struct DataFileState {
        var newest: TransactionID?
        var fileID: UInt64?
        var hasInvalidSlot: Bool

        /// Whether the log generation `header` began continues this file (its device and inode
        /// are checked apart):
        /// - the same file id, unless either is unknown (a file from before ids, or both metas
        ///   torn): not another realm's bytes written over this one;
        /// - a version at least as new as the base, or a torn meta slot, which only a crash
        ///   after the generation began leaves: not an older copy of this file written over it.
        func continues(_ header: Header) -> Bool {
            let sameFile = header.fileID == 0 || fileID == nil || fileID == 0 || fileID == header.fileID
            return sameFile && (hasInvalidSlot || (newest ?? 0) >= header.base)
        }
    }

    /// Encodes a record header into `pages` (`header.headerPages` zeroed pages).
    static func encodeRecordHeader(_ header: RecordHeader, into pages: UnsafeMutableRawPointer, sealing: Sealing) {
        pages.setU64(8, recordMagic)
        pages.setU64(16, header.salt)
        pages.setU64(24, header.sequence)
        pages.setU64(32, header.transaction)
        pages.setU32(40, UInt32(header.entries.count))
        pages.setU32(44, UInt32(header.headerPages))
        pages.setU64(48, header.imagePages)
        pages.setU64(56, header.pageCount)
        var offset = headerBytes
        for entry in header.entries {
            pages.setU64(offset, entry.page)
            pages.setU64(offset + 8, entry.pages)
            pages.setU64(offset + 16, entry.transaction)
            offset += entryBytes
        }
        pages.setU64(0, sealing.code(UnsafeRawPointer(pages), length: offset, label: recordLabel))
    }

    /// How many header pages the record starting with `firstPage` claims, if its first page
    /// looks like a record header of this generation (checked before the rest is read).
    static func claimedHeaderPages(_ firstPage: UnsafeRawPointer, salt: UInt64, sequence: UInt64) -> Int? {
        guard firstPage.u64(8) == recordMagic, firstPage.u64(16) == salt, firstPage.u64(24) == sequence else { return nil }
        let count = Int(firstPage.u32(40))
        let pages = Int(firstPage.u32(44))
        // Every entry is at least one page of images, and a record holds at most
        // `WriteAheadLog.recordLimit` bytes of them (plus its meta page): a larger count is
        // damage, refused before the header's pages are allocated and read.
        guard count > 0, count <= WriteAheadLog.recordLimit / PageLayout.pageSize + 1,
              pages == RecordHeader.pages(forEntries: count) else { return nil }
        return pages
    }

    /// Decodes a whole record header (`claimedHeaderPages` pages) and checks its code and
    /// entries; nil if anything is off.
    static func decodeRecordHeader(_ pages: UnsafeRawPointer, sealing: Sealing) -> RecordHeader? {
        let count = Int(pages.u32(40))
        let end = headerBytes + entryBytes * count
        guard sealing.isValid(pages, length: end, label: recordLabel) else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var offset = headerBytes
        for _ in 0..<count {
            let entry = Entry(page: pages.u64(offset), pages: pages.u64(offset + 8), transaction: pages.u64(offset + 16))
            guard entry.pages > 0, entry.page < pageNumberLimit, entry.pages < pageNumberLimit - entry.page else { return nil }
            entries.append(entry)
            offset += entryBytes
        }
        let header = RecordHeader(salt: pages.u64(16), sequence: pages.u64(24), transaction: pages.u64(32),
                                  pageCount: pages.u64(56), entries: entries)
        guard header.imagePages == pages.u64(48), header.pageCount < pageNumberLimit else { return nil }
        return header
    }
}
