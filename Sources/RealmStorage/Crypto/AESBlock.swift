/// One 16-byte AES block (a plaintext or ciphertext block, an IV, a counter, a round key), held
/// as two 64-bit words so that it lives in registers: `low` holds bytes 0–7 and `high` bytes 8–15,
/// each loaded little-endian, which is also how a 128-bit vector register of x86-64 and arm64
/// holds the 16 bytes of a block in memory order. Every AES path reads and writes blocks in this
/// one representation, so the hardware and portable paths share round keys and modes.
package struct AESBlock: Sendable, Equatable {
    package var low: UInt64
    package var high: UInt64

    @inline(__always)
    package init(low: UInt64, high: UInt64) {
        self.low = low
        self.high = high
    }

    /// The 16 bytes at `pointer`, which need not be aligned.
    @inline(__always)
    package init(loadingFrom pointer: UnsafeRawPointer) {
        low = UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))
        high = UInt64(littleEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
    }

    /// A block from exactly 16 bytes, in order.
    package init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == 16, "an AES block is 16 bytes, not \(bytes.count)")
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            for (offset, byte) in bytes.enumerated() { raw[offset] = byte }
        }
        self.init(low: UInt64(littleEndian: words.0), high: UInt64(littleEndian: words.1))
    }

    /// A 128-bit big-endian integer as a block: the form of an SP 800-38A counter block, whose
    /// increment carries from byte 15 towards byte 0.
    @inline(__always)
    package init(bigEndianHigh: UInt64, low bigEndianLow: UInt64) {
        low = UInt64(littleEndian: bigEndianHigh.bigEndian)
        high = UInt64(littleEndian: bigEndianLow.bigEndian)
    }

    /// Stores the 16 bytes at `pointer`, which need not be aligned.
    @inline(__always)
    package func store(to pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: low.littleEndian, as: UInt64.self)
        pointer.storeBytes(of: high.littleEndian, toByteOffset: 8, as: UInt64.self)
    }

    /// The 16 bytes, in order.
    package var bytes: [UInt8] {
        var words = (low.littleEndian, high.littleEndian)
        return withUnsafeBytes(of: &words) { Array($0) }
    }

    @inline(__always)
    static func ^ (lhs: AESBlock, rhs: AESBlock) -> AESBlock {
        AESBlock(low: lhs.low ^ rhs.low, high: lhs.high ^ rhs.high)
    }
}
