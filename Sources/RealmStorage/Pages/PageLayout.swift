/// A page's index in the file: byte offset `page * PageLayout.pageSize`.
package typealias PageNumber = UInt64

/// The number of the commit that produced a version. Strictly increasing; never reused.
package typealias TransactionID = UInt64

/// What a page holds, stored in byte 16 of every page header.
@usableFromInline package enum PageKind: UInt8, Sendable {
    case meta = 1
    case inner = 2
    case leaf = 3
    case overflow = 4
    case freeList = 5
    case cluster = 6
    case indexLeaf = 7
    case indexInner = 8
}

/// The fixed geometry of every page.
///
/// Every page starts with the same 24-byte header:
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | checksum of bytes `8..<length` (length is the page, or the whole run for overflow) |
/// | 8 | 8 | the transaction that wrote the page |
/// | 16 | 1 | ``PageKind`` |
/// | 17 | 1 | flags (kind-specific) |
/// | 18 | 2 | entry count (kind-specific) |
/// | 20 | 4 | kind-specific (leaf: heap start; overflow: run length in pages) |
///
/// All integers are little-endian and read with unaligned loads, so a page decodes identically on
/// any host and from any offset of the mapping.
@usableFromInline package enum PageLayout {
    /// Bytes per page. Recorded in the meta page so that larger pages can come later.
    @usableFromInline package static let pageSize = 4096
    @usableFromInline package static let pageShift: UInt64 = 12
    @usableFromInline package static let headerSize = 24

    @usableFromInline package static let checksumOffset = 0
    @usableFromInline package static let transactionOffset = 8
    @usableFromInline package static let kindOffset = 16
    @usableFromInline package static let flagsOffset = 17
    @usableFromInline package static let countOffset = 18
    @usableFromInline package static let auxOffset = 20

    /// The first page that can hold data; pages 0 and 1 are the two meta pages.
    package static let firstDataPage: PageNumber = 2
}

extension UnsafeRawPointer {
    @inlinable @inline(__always) func u64(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
    @inlinable @inline(__always) func u32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
    @inlinable @inline(__always) func u16(_ offset: Int) -> UInt16 {
        UInt16(littleEndian: loadUnaligned(fromByteOffset: offset, as: UInt16.self))
    }
    @inlinable @inline(__always) func u8(_ offset: Int) -> UInt8 {
        load(fromByteOffset: offset, as: UInt8.self)
    }
    @inlinable var pageKind: PageKind? { PageKind(rawValue: u8(PageLayout.kindOffset)) }
    var pageTransaction: TransactionID { u64(PageLayout.transactionOffset) }
    @inlinable var pageCount16: Int { Int(u16(PageLayout.countOffset)) }
}

extension UnsafeMutableRawPointer {
    @inline(__always) func setU64(_ offset: Int, _ value: UInt64) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt64.self)
    }
    @inline(__always) func setU32(_ offset: Int, _ value: UInt32) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self)
    }
    @inline(__always) func setU16(_ offset: Int, _ value: UInt16) {
        storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt16.self)
    }
    @inline(__always) func setU8(_ offset: Int, _ value: UInt8) {
        storeBytes(of: value, toByteOffset: offset, as: UInt8.self)
    }

    var pageKind: PageKind? { UnsafeRawPointer(self).pageKind }

    /// Writes a fresh header (checksum left zero until the page is sealed at commit).
    func initializePageHeader(kind: PageKind, transaction: TransactionID) {
        setU64(PageLayout.checksumOffset, 0)
        setU64(PageLayout.transactionOffset, transaction)
        setU8(PageLayout.kindOffset, kind.rawValue)
        setU8(PageLayout.flagsOffset, 0)
        setU16(PageLayout.countOffset, 0)
        setU32(PageLayout.auxOffset, 0)
    }
}

extension UnsafeRawPointer {
    /// How many pages the page or run that starts here spans, as its header says: a wide table
    /// leaf's `1 << flags`, an overflow run's length, else 1. A header read from the file is
    /// untrusted: callers bound the result before using it.
    var runPages: UInt64 {
        switch pageKind {
        case .cluster?: UInt64(1) << UInt64(u8(PageLayout.flagsOffset) & 3)
        case .overflow?: max(1, UInt64(u32(PageLayout.auxOffset)))
        default: 1
        }
    }
}
