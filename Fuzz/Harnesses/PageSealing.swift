import RealmStorage

/// Recomputes the checksum of every page of a realm file's bytes (or of a log's images).
///
/// A mutated page almost never has a valid checksum, and a page with a wrong one is refused
/// before anything decodes it: fuzzing the raw bytes would test the checksum and little else.
/// Sealing each page again after the mutation lets the fuzzer reach what reads a page — the
/// trees, the catalog, the schema, the values — as a file damaged *and* resealed (or written
/// by a hostile or broken writer) would.
enum PageSealing {
    /// Seals every page of `bytes`, each over its own length: one page, an overflow run (its
    /// length in pages at `auxOffset`) or a wide table leaf (2^flags pages), cut at the end of
    /// the bytes. A trailing partial page is left as it is.
    static func sealPages(_ bytes: inout [UInt8], from start: Int = 0, to end: Int? = nil) {
        let pageSize = PageLayout.pageSize
        let end = min(end ?? bytes.count, bytes.count)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = start
            while offset + pageSize <= end {
                let kind = buffer[offset + PageLayout.kindOffset]
                var pages = 1
                if kind == PageKind.overflow.rawValue {
                    pages = Int(buffer.loadUnaligned(fromByteOffset: offset + PageLayout.auxOffset, as: UInt32.self).littleEndian)
                } else if kind == PageKind.cluster.rawValue, buffer[offset + PageLayout.flagsOffset] < 8 {
                    pages = 1 << Int(buffer[offset + PageLayout.flagsOffset])
                }
                pages = max(1, min(pages, (end - offset) / pageSize))
                PageChecksum.seal(buffer.baseAddress! + offset, length: pages * pageSize)
                offset += pages * pageSize
            }
        }
    }
}
