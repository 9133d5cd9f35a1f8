/// The portable AES-256 rounds: constant-time, table-free, for CPUs without AES instructions
/// (and for the tests, which check the hardware path against it).
///
/// A table-driven AES indexes an S-box (or T-tables) with secret bytes, so which cache lines it
/// touches depends on the key and the data, and a process sharing the cache can recover the key
/// from timing. Here no memory address and no branch depends on a secret: the state is two
/// 64-bit words of eight bytes each, and every step is a fixed sequence of shifts by constants,
/// AND, XOR and multiplications by constants, over all bytes of a word at once (SWAR: SIMD within
/// a register).
///
/// - SubBytes is computed, not looked up: the multiplicative inverse in GF(2^8) as x^254 (an
///   addition chain of 7 squarings and 4 multiplications, 0 mapping to 0 as AES requires), then
///   the affine map. A GF(2^8) multiplication is the shift-and-add loop with all eight bits of the
///   multiplier used as masks (`bit * 0xFF`), and `xtime` reduces by 0x1B through a mask too.
/// - ShiftRows moves bytes between fixed positions with masks; MixColumns and InvMixColumns
///   rotate the bytes of each 32-bit column and combine them with `xtime`.
///
/// Cost: about 1 500 word operations per round, the two inversions dominating: about 3 MB/s,
/// 1.1–1.4 ms per 4 KiB page on the shared 2-core x86-64 test machine (release build,
/// `realm-engine-bench --crypto`), against 1.5–3 GB/s for AES-NI in CTR mode. It is the safe
/// fallback, not the fast path; a bitsliced AES (several blocks per S-box evaluation) would be
/// the way to make it an order of magnitude faster.
enum PortableAES {
    // Bytes of a word with bit 0 set, and with the low 7 bits set.
    private static let lowBits: UInt64 = 0x0101_0101_0101_0101
    private static let low7Bits: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// Multiplies each byte by x (2) in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
    @inline(__always)
    static func xtime(_ x: UInt64) -> UInt64 {
        ((x & low7Bits) << 1) ^ (((x >> 7) & lowBits) &* 0x1B)
    }

    /// Multiplies each byte of `a` by the byte of `b` at the same position, in GF(2^8).
    @inline(__always)
    static func multiply(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var product: UInt64 = 0
        var a = a
        for bit in 0..<8 {
            product ^= a & (((b >> UInt64(bit)) & lowBits) &* 0xFF)  // a where the bit is set, else 0
            a = xtime(a)
        }
        return product
    }

    /// Squares each byte in GF(2^8). Squaring is linear over GF(2): bit i of the input
    /// contributes x^(2i) mod the AES polynomial, so eight masked constants replace a
    /// multiplication (no `xtime`), at about 40% of its cost.
    @inline(__always)
    static func square(_ x: UInt64) -> UInt64 {
        // x^0, x^2, …, x^14 reduced: 0x01, 0x04, 0x10, 0x40, 0x1B, 0x6C, 0xAB, 0x9A.
        var result = (x & lowBits)
        result ^= ((x >> 1) & lowBits) &* 0x04
        result ^= ((x >> 2) & lowBits) &* 0x10
        result ^= ((x >> 3) & lowBits) &* 0x40
        result ^= ((x >> 4) & lowBits) &* 0x1B
        result ^= ((x >> 5) & lowBits) &* 0x6C
        result ^= ((x >> 6) & lowBits) &* 0xAB
        result ^= ((x >> 7) & lowBits) &* 0x9A
        return result
    }

    /// Each byte's multiplicative inverse in GF(2^8) (0 for 0): x^254, by 7 squarings and 4
    /// multiplications.
    @inline(__always)
    static func inverse(_ x: UInt64) -> UInt64 {
        let x2 = square(x)
        let x3 = multiply(x2, x)
        let x12 = square(square(x3))
        let x15 = multiply(x12, x3)
        let x240 = square(square(square(square(x15))))
        let x252 = multiply(x240, x12)
        return multiply(x252, x2)
    }

    /// Rotates each byte left by `count` bits (1...7).
    @inline(__always)
    static func rotateBytes(_ x: UInt64, _ count: UInt64) -> UInt64 {
        let stay = UInt64(0xFF >> count) &* lowBits  // the bits that stay inside their byte
        let wrap = UInt64(0xFF >> (8 - count)) &* lowBits  // where the top bits land
        return ((x & stay) << count) | ((x >> (8 - count)) & wrap)
    }

    /// SubBytes of eight bytes.
    @inline(__always)
    static func substitute(_ x: UInt64) -> UInt64 {
        let b = inverse(x)
        return b ^ rotateBytes(b, 1) ^ rotateBytes(b, 2) ^ rotateBytes(b, 3) ^ rotateBytes(b, 4) ^ 0x6363_6363_6363_6363
    }

    /// InvSubBytes of eight bytes: the inverse affine map, then the inversion.
    @inline(__always)
    static func inverseSubstitute(_ x: UInt64) -> UInt64 {
        inverse(rotateBytes(x, 1) ^ rotateBytes(x, 3) ^ rotateBytes(x, 6) ^ 0x0505_0505_0505_0505)
    }

    // ShiftRows. Byte 4c + r of the block is row r of column c; `low` holds columns 0 and 1,
    // `high` columns 2 and 3, so column c + 1 of a word is 32 bits up. Row 0 stays, row 2 swaps
    // the words, rows 1 and 3 take each byte from the next or the previous column.
    private static let row0: UInt64 = 0x0000_00FF_0000_00FF
    private static let row2: UInt64 = 0x00FF_0000_00FF_0000
    private static let row1Low: UInt64 = 0x0000_0000_0000_FF00, row1High: UInt64 = 0x0000_FF00_0000_0000
    private static let row3Low: UInt64 = 0x0000_0000_FF00_0000, row3High: UInt64 = 0xFF00_0000_0000_0000

    /// ShiftRows (row r rotates left by r columns) or, with `inverse`, InvShiftRows.
    @inline(__always)
    static func shiftRows(_ s: AESBlock, inverse: Bool) -> AESBlock {
        // "next": the byte of column c + 1 moves to column c; "previous": of column c − 1.
        let nextLow = ((s.low >> 32), (s.high << 32)), nextHigh = ((s.high >> 32), (s.low << 32))
        let previousLow = ((s.high >> 32), (s.low << 32)), previousHigh = ((s.low >> 32), (s.high << 32))
        let (r1Low, r1High) = inverse ? (previousLow, previousHigh) : (nextLow, nextHigh)
        let (r3Low, r3High) = inverse ? (nextLow, nextHigh) : (previousLow, previousHigh)
        let low = (s.low & row0) | (s.high & row2)
            | (r1Low.0 & row1Low) | (r1Low.1 & row1High) | (r3Low.0 & row3Low) | (r3Low.1 & row3High)
        let high = (s.high & row0) | (s.low & row2)
            | (r1High.0 & row1Low) | (r1High.1 & row1High) | (r3High.0 & row3Low) | (r3High.1 & row3High)
        return AESBlock(low: low, high: high)
    }

    /// MixColumns of the two columns in a word: each output byte is
    /// 2·a(r) ⊕ 3·a(r+1) ⊕ a(r+2) ⊕ a(r+3) = xtime(a(r) ⊕ a(r+1)) ⊕ a(r+1) ⊕ a(r+2) ⊕ a(r+3).
    @inline(__always)
    static func mixColumns(_ x: UInt64) -> UInt64 {
        let a1 = ((x >> 8) & 0x00FF_FFFF_00FF_FFFF) | ((x << 24) & 0xFF00_0000_FF00_0000)
        let a2 = ((x >> 16) & 0x0000_FFFF_0000_FFFF) | ((x << 16) & 0xFFFF_0000_FFFF_0000)
        let a3 = ((x >> 24) & 0x0000_00FF_0000_00FF) | ((x << 8) & 0xFFFF_FF00_FFFF_FF00)
        return xtime(x ^ a1) ^ a1 ^ a2 ^ a3
    }

    /// InvMixColumns: a(r) ⊕= 4·(a(r) ⊕ a(r+2)), then MixColumns (the factorisation of the
    /// inverse matrix used by the AES designers).
    @inline(__always)
    static func inverseMixColumns(_ x: UInt64) -> UInt64 {
        let a2 = ((x >> 16) & 0x0000_FFFF_0000_FFFF) | ((x << 16) & 0xFFFF_0000_FFFF_0000)
        return mixColumns(x ^ xtime(xtime(x ^ a2)))
    }

    @inline(__always)
    static func roundKey(_ keys: UnsafeRawPointer, _ round: Int) -> AESBlock {
        AESBlock(loadingFrom: keys + 16 * round)
    }

    /// Encrypts one block with the 15 round keys at `keys`.
    @inline(__always)
    static func encrypt(_ block: AESBlock, keys: UnsafeRawPointer) -> AESBlock {
        var s = block ^ roundKey(keys, 0)
        for round in 1..<AES256.rounds {
            s = shiftRows(AESBlock(low: substitute(s.low), high: substitute(s.high)), inverse: false)
            s = AESBlock(low: mixColumns(s.low), high: mixColumns(s.high)) ^ roundKey(keys, round)
        }
        s = shiftRows(AESBlock(low: substitute(s.low), high: substitute(s.high)), inverse: false)
        return s ^ roundKey(keys, AES256.rounds)
    }

    /// Decrypts one block with the 15 (encryption) round keys at `keys`: the straight inverse
    /// cipher.
    @inline(__always)
    static func decrypt(_ block: AESBlock, keys: UnsafeRawPointer) -> AESBlock {
        var s = block ^ roundKey(keys, AES256.rounds)
        for round in stride(from: AES256.rounds - 1, through: 1, by: -1) {
            s = shiftRows(s, inverse: true)
            s = AESBlock(low: inverseSubstitute(s.low), high: inverseSubstitute(s.high)) ^ roundKey(keys, round)
            s = AESBlock(low: inverseMixColumns(s.low), high: inverseMixColumns(s.high))
        }
        s = shiftRows(s, inverse: true)
        return AESBlock(low: inverseSubstitute(s.low), high: inverseSubstitute(s.high)) ^ roundKey(keys, 0)
    }

    /// The AES-256 key schedule (FIPS-197 §5.2): 15 round keys, 240 bytes, written at `keys`.
    /// SubWord goes through `substitute`, so the schedule is constant-time like the rounds.
    static func expandKey(_ key: UnsafeRawBufferPointer, into keys: UnsafeMutableRawPointer) {
        precondition(key.count == 32, "an AES-256 key is 32 bytes, not \(key.count)")
        // Words w[i] in little-endian order (byte 0 of a word is its lowest 8 bits), built in
        // place at `keys`: the schedule is key material, and lives nowhere else.
        func word(_ i: Int) -> UInt32 { keys.load(fromByteOffset: 4 * i, as: UInt32.self) }
        for i in 0..<8 {
            let value = UInt32(littleEndian: key.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self))
            keys.storeBytes(of: value, toByteOffset: 4 * i, as: UInt32.self)
        }
        var roundConstant: UInt32 = 1
        for i in 8..<60 {
            var temporary = word(i - 1)
            if i % 8 == 0 {
                temporary = (temporary >> 8) | (temporary << 24)  // RotWord: bytes [a1, a2, a3, a0]
                temporary = UInt32(truncatingIfNeeded: substitute(UInt64(temporary))) ^ roundConstant
                roundConstant = UInt32(truncatingIfNeeded: xtime(UInt64(roundConstant)))
            } else if i % 8 == 4 {
                temporary = UInt32(truncatingIfNeeded: substitute(UInt64(temporary)))
            }
            keys.storeBytes(of: word(i - 8) ^ temporary, toByteOffset: 4 * i, as: UInt32.self)
        }
        // The words were stored in native order; round keys are bytes in block order.
        for i in 0..<60 { keys.storeBytes(of: word(i).littleEndian, toByteOffset: 4 * i, as: UInt32.self) }
    }
}
