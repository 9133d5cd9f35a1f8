/// The 64-bit checksum that seals every page (and every overflow run) at commit.
///
/// It must detect torn and stale pages, not resist an adversary, so it is a fast
/// multiply-rotate hash over 8-byte words in four independent lanes (the lanes let the CPU overlap
/// the multiplications): about 1 byte per cycle, so sealing a 4 KiB page costs ~1 µs.
/// The checksum covers bytes `8..<length`, that is everything but the checksum itself.
package enum PageChecksum {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9

    @inline(__always)
    private static func round(_ acc: UInt64, _ word: UInt64) -> UInt64 {
        let mixed = acc &+ word &* prime2
        return ((mixed << 31) | (mixed >> 33)) &* prime1
    }

    /// The checksum of `length - 8` bytes starting 8 bytes into `base`. `length` is a multiple of 8.
    package static func compute(_ base: UnsafeRawPointer, length: Int) -> UInt64 {
        precondition(length >= 8 && length % 8 == 0)
        var a: UInt64 = prime1 &+ prime2
        var b: UInt64 = prime2
        var c: UInt64 = 0
        var d: UInt64 = 0 &- prime1
        var offset = 8
        while offset + 32 <= length {
            a = round(a, base.u64(offset))
            b = round(b, base.u64(offset + 8))
            c = round(c, base.u64(offset + 16))
            d = round(d, base.u64(offset + 24))
            offset += 32
        }
        var hash = ((a << 1) | (a >> 63)) &+ ((b << 7) | (b >> 57))
            &+ ((c << 12) | (c >> 52)) &+ ((d << 18) | (d >> 46))
        while offset < length {
            hash = round(hash ^ prime3, base.u64(offset))
            offset += 8
        }
        hash ^= UInt64(length)
        hash ^= hash >> 33
        hash = hash &* prime2
        hash ^= hash >> 29
        hash = hash &* prime3
        hash ^= hash >> 32
        return hash
    }

    /// Computes and stores the checksum of a page or run in its header.
    package static func seal(_ base: UnsafeMutableRawPointer, length: Int) {
        base.setU64(PageLayout.checksumOffset, compute(UnsafeRawPointer(base), length: length))
    }

    /// Whether the stored checksum matches the contents.
    package static func isValid(_ base: UnsafeRawPointer, length: Int) -> Bool {
        base.u64(PageLayout.checksumOffset) == compute(base, length: length)
    }
}
