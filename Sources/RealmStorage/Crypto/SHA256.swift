/// SHA-256 (FIPS 180-4), incremental: `update` with any number of byte runs, then `finalize`.
/// The state is a value (eight words, a 64-byte buffer, a length); hashing allocates nothing.
///
/// Constant-time: the compression function is additions, rotations and logic on 32-bit words,
/// and the only branches depend on lengths, which are public.
package struct SHA256: Sendable {
    package static let blockByteCount = 64
    package static let digestByteCount = 32

    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19)
    /// Bytes not yet compressed: fewer than 64.
    private var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var buffered = 0
    private var length: UInt64 = 0

    package init() {}

    /// The digest of `data`.
    package static func hash(_ data: UnsafeRawBufferPointer) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize()
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> SHA256Digest {
        bytes.withUnsafeBytes { hash($0) }
    }

    /// Adds `data` to the message.
    package mutating func update(_ data: UnsafeRawBufferPointer) {
        guard var source = data.baseAddress, !data.isEmpty else { return }
        var remaining = data.count
        length &+= UInt64(remaining)
        if buffered > 0 {
            let taken = min(remaining, Self.blockByteCount - buffered)
            let offset = buffered
            withUnsafeMutableBytes(of: &buffer) { $0.baseAddress!.advanced(by: offset).copyMemory(from: source, byteCount: taken) }
            buffered += taken
            source += taken
            remaining -= taken
            guard buffered == Self.blockByteCount else { return }
            let block = buffer
            withUnsafeBytes(of: block) { compress($0.baseAddress!, blocks: 1) }
            buffered = 0
        }
        let whole = remaining / Self.blockByteCount
        if whole > 0 {
            compress(source, blocks: whole)
            source += whole * Self.blockByteCount
            remaining -= whole * Self.blockByteCount
        }
        if remaining > 0 {
            let count = remaining
            withUnsafeMutableBytes(of: &buffer) { $0.baseAddress!.copyMemory(from: source, byteCount: count) }
            buffered = remaining
        }
    }

    /// Pads the message and returns its digest.
    package func finalize() -> SHA256Digest {
        var hasher = self
        let bitLength = length &* 8
        // 0x80, zeros up to 56 bytes mod 64, then the length in bits, big-endian.
        var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        let padCount = (buffered < 56 ? 56 : 120) - buffered
        withUnsafeMutableBytes(of: &padding) { raw in
            raw[0] = 0x80
            raw.storeBytes(of: bitLength.bigEndian, toByteOffset: padCount, as: UInt64.self)
            hasher.update(UnsafeRawBufferPointer(rebasing: raw[0..<(padCount + 8)]))
        }
        var digest = SHA256Digest()
        withUnsafeBytes(of: hasher.h) { state in
            withUnsafeMutableBytes(of: &digest.words) { raw in
                for index in 0..<8 {
                    raw.storeBytes(of: state.load(fromByteOffset: 4 * index, as: UInt32.self).bigEndian,
                                   toByteOffset: 4 * index, as: UInt32.self)
                }
            }
        }
        return digest
    }

    /// Compresses `blocks` 64-byte blocks at `source` into `h`.
    private mutating func compress(_ source: UnsafeRawPointer, blocks: Int) {
        var (a0, b0, c0, d0, e0, f0, g0, h0) = h
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            Self.roundConstants.withUnsafeBufferPointer { k in
                for block in 0..<blocks {
                    let base = source + block * Self.blockByteCount
                    for t in 0..<16 { w[t] = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: 4 * t, as: UInt32.self)) }
                    for t in 16..<64 {
                        let s0 = w[t - 15].rotatedRight(7) ^ w[t - 15].rotatedRight(18) ^ (w[t - 15] >> 3)
                        let s1 = w[t - 2].rotatedRight(17) ^ w[t - 2].rotatedRight(19) ^ (w[t - 2] >> 10)
                        w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
                    }
                    var (a, b, c, d, e, f, g, h) = (a0, b0, c0, d0, e0, f0, g0, h0)
                    for t in 0..<64 {
                        let sigma1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
                        let choose = (e & f) ^ (~e & g)
                        let t1 = h &+ sigma1 &+ choose &+ k[t] &+ w[t]
                        let sigma0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
                        let majority = (a & b) ^ (a & c) ^ (b & c)
                        let t2 = sigma0 &+ majority
                        (h, g, f, e, d, c, b, a) = (g, f, e, d &+ t1, c, b, a, t1 &+ t2)
                    }
                    a0 &+= a; b0 &+= b; c0 &+= c; d0 &+= d
                    e0 &+= e; f0 &+= f; g0 &+= g; h0 &+= h
                }
            }
            // The message schedule is derived from the message (and, in HMAC, from the key).
            w.initialize(repeating: 0)
        }
        h = (a0, b0, c0, d0, e0, f0, g0, h0)
    }

    private static let roundConstants: [UInt32] = [
        0x428A_2F98, 0x7137_4491, 0xB5C0_FBCF, 0xE9B5_DBA5, 0x3956_C25B, 0x59F1_11F1, 0x923F_82A4, 0xAB1C_5ED5,
        0xD807_AA98, 0x1283_5B01, 0x2431_85BE, 0x550C_7DC3, 0x72BE_5D74, 0x80DE_B1FE, 0x9BDC_06A7, 0xC19B_F174,
        0xE49B_69C1, 0xEFBE_4786, 0x0FC1_9DC6, 0x240C_A1CC, 0x2DE9_2C6F, 0x4A74_84AA, 0x5CB0_A9DC, 0x76F9_88DA,
        0x983E_5152, 0xA831_C66D, 0xB003_27C8, 0xBF59_7FC7, 0xC6E0_0BF3, 0xD5A7_9147, 0x06CA_6351, 0x1429_2967,
        0x27B7_0A85, 0x2E1B_2138, 0x4D2C_6DFC, 0x5338_0D13, 0x650A_7354, 0x766A_0ABB, 0x81C2_C92E, 0x9272_2C85,
        0xA2BF_E8A1, 0xA81A_664B, 0xC24B_8B70, 0xC76C_51A3, 0xD192_E819, 0xD699_0624, 0xF40E_3585, 0x106A_A070,
        0x19A4_C116, 0x1E37_6C08, 0x2748_774C, 0x34B0_BCB5, 0x391C_0CB3, 0x4ED8_AA4A, 0x5B9C_CA4F, 0x682E_6FF3,
        0x748F_82EE, 0x78A5_636F, 0x84C8_7814, 0x8CC7_0208, 0x90BE_FFFA, 0xA450_6CEB, 0xBEF9_A3F7, 0xC671_78F2,
    ]
}

/// A SHA-256 digest (or HMAC-SHA-256 code): 32 bytes, compared in constant time.
package struct SHA256Digest: Sendable, Equatable, CustomStringConvertible {
    /// The 32 bytes in order, as four words in memory.
    fileprivate(set) var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    /// The digest's bytes, in order.
    package var bytes: [UInt8] { withUnsafeBytes(Array.init) }

    /// Calls `body` with the 32 bytes.
    package func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try Swift.withUnsafeBytes(of: words, body)
    }

    /// Lowercase hexadecimal.
    package var description: String {
        bytes.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    /// Constant-time equality: a MAC check must not reveal how many leading bytes matched.
    package static func == (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        lhs.withUnsafeBytes { left in rhs.withUnsafeBytes { right in ConstantTime.equals(left, right) } }
    }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 { (self >> count) | (self << (32 - count)) }
}
