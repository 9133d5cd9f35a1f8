import CRealmCrypto

/// SHA-256 (FIPS 180-4), incremental: `update` with any number of byte runs, then `finalize`.
/// The state is a value (eight words, a 64-byte buffer, a length); hashing allocates nothing.
///
/// Two implementations of the compression function: the CPU's SHA-256 instructions (SHA-NI on
/// x86-64, the ARMv8 SHA2 instructions on arm64), in the package's C target `CRealmCrypto` for
/// the reasons `HardwareAES` gives, where the CPU has them (`CPUFeatures.hasSHA256`); otherwise
/// the Swift one below. A 4 KiB page's HMAC takes about 18 µs in Swift on the x86-64 test
/// machine, about 3 µs with SHA-NI (1.3–1.4 GB/s).
///
/// Constant-time: both compression functions are additions, rotations and logic on 32-bit
/// words (in the hardware one, instructions whose timing does not depend on their operands), and
/// the only branches depend on lengths and the choice of implementation, which are public.
package struct SHA256: Sendable {
    /// Which implementation of the compression function runs.
    package enum Implementation: Sendable, Equatable, CustomStringConvertible {
        /// SHA-NI (x86-64) or the ARMv8 SHA2 instructions (arm64), in C.
        case hardware
        /// The compression function in Swift.
        case portable

        /// Whether this build has the hardware compression (x86-64, arm64) and this CPU the
        /// instructions.
        package static let isHardwareAvailable = realm_sha256_hardware_compiled() != 0 && CPUFeatures.hasSHA256

        /// The fastest implementation here.
        package static var best: Implementation { isHardwareAvailable ? .hardware : .portable }

        package var description: String { self == .hardware ? "hardware" : "portable" }
    }

    package static let blockByteCount = 64
    package static let digestByteCount = 32

    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6A09_E667, 0xBB67_AE85, 0x3C6E_F372, 0xA54F_F53A, 0x510E_527F, 0x9B05_688C, 0x1F83_D9AB, 0x5BE0_CD19)
    /// Bytes not yet compressed: fewer than 64.
    private var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var buffered = 0
    private var length: UInt64 = 0
    package let implementation: Implementation

    /// An empty message. Asking for `.hardware` where it is not available is a programmer error
    /// (check `Implementation.isHardwareAvailable`).
    package init(implementation: Implementation = .best) {
        precondition(implementation == .portable || Implementation.isHardwareAvailable,
                     "hardware SHA-256 is not available in this build or on this CPU")
        self.implementation = implementation
    }

    /// The digest of `data`.
    package static func hash(_ data: UnsafeRawBufferPointer, implementation: Implementation = .best) -> SHA256Digest {
        var hasher = SHA256(implementation: implementation)
        hasher.update(data)
        return hasher.finalize()
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: [UInt8], implementation: Implementation = .best) -> SHA256Digest {
        bytes.withUnsafeBytes { hash($0, implementation: implementation) }
    }

    /// Adds `data` to the message.
    package mutating func update(_ data: UnsafeRawBufferPointer) {
        guard let start = data.baseAddress, !data.isEmpty else { return }
        var (source, remaining) = fillBuffer(from: start, count: data.count)
        if buffered == Self.blockByteCount {
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
        keepTail(source, count: remaining)
    }

    /// The first step of an update with `count` bytes at `source`: counts them in `length` and,
    /// if bytes are buffered, adds to the buffer as many as it takes (the caller compresses it
    /// when it is full, `buffered == 64`). Returns the bytes left: if any, the buffer is full or
    /// was empty.
    @inline(__always)
    private mutating func fillBuffer(from source: UnsafeRawPointer, count: Int) -> (UnsafeRawPointer, Int) {
        length &+= UInt64(count)
        guard buffered > 0 else { return (source, count) }
        let taken = min(count, Self.blockByteCount - buffered)
        let offset = buffered
        withUnsafeMutableBytes(of: &buffer) { $0.baseAddress!.advanced(by: offset).copyMemory(from: source, byteCount: taken) }
        buffered += taken
        return (source + taken, count - taken)
    }

    /// The last step of an update: keeps the `count` (< 64) bytes at `source` that make no whole
    /// block, in the empty buffer.
    @inline(__always)
    private mutating func keepTail(_ source: UnsafeRawPointer, count: Int) {
        guard count > 0 else { return }
        withUnsafeMutableBytes(of: &buffer) { $0.baseAddress!.copyMemory(from: source, byteCount: count) }
        buffered = count
    }

    /// Adds `first` to `a`'s message and `second` to `b`'s: the same as `a.update(first)` and
    /// `b.update(second)`, but where both run on the hardware, their blocks are compressed two
    /// at a time by `realm_sha256_compress2`, whose two interleaved streams fill the latency of
    /// the SHA-256 instructions that one stream leaves idle (≈ 1.3 → 1.6 GB/s per core on the
    /// test machine). Blocks that have no partner (the longer message's excess) go one stream
    /// at a time.
    package static func update(_ a: inout SHA256, with first: UnsafeRawBufferPointer,
                               _ b: inout SHA256, with second: UnsafeRawBufferPointer) {
        guard a.implementation == .hardware, b.implementation == .hardware,
              let startA = first.baseAddress, let startB = second.baseAddress,
              first.count + a.buffered >= blockByteCount, second.count + b.buffered >= blockByteCount else {
            a.update(first)
            b.update(second)
            return
        }
        let (sourceA, remainingA) = a.fillBuffer(from: startA, count: first.count)
        let (sourceB, remainingB) = b.fillBuffer(from: startB, count: second.count)
        // Each message's blocks: the full buffer, if it filled, then the whole blocks at the source.
        let blockA = a.buffer, blockB = b.buffer
        let wholeA = remainingA / blockByteCount, wholeB = remainingB / blockByteCount
        withUnsafeBytes(of: blockA) { bufferA in
            withUnsafeBytes(of: blockB) { bufferB in
                var runsA = BlockRuns(buffer: a.buffered == blockByteCount ? bufferA.baseAddress! : nil, source: sourceA, whole: wholeA)
                var runsB = BlockRuns(buffer: b.buffered == blockByteCount ? bufferB.baseAddress! : nil, source: sourceB, whole: wholeB)
                // Safe: `a.h` and `b.h` are tuples of eight UInt32s (eight contiguous, aligned
                // UInt32s, the C function's state) in two distinct variables (two inout
                // arguments cannot alias), rebound only for the call; each run pointer is valid
                // for `count` × 64 bytes: a 64-byte copy of a buffer, alive in this closure, or
                // the caller's message, whose whole blocks `BlockRuns` counted.
                withUnsafeMutablePointer(to: &a.h) { stateA in
                    withUnsafeMutablePointer(to: &b.h) { stateB in
                        stateA.withMemoryRebound(to: UInt32.self, capacity: 8) { wordsA in
                            stateB.withMemoryRebound(to: UInt32.self, capacity: 8) { wordsB in
                                while runsA.count > 0, runsB.count > 0 {
                                    let count = min(runsA.count, runsB.count)
                                    realm_sha256_compress2(wordsA, runsA.pointer, wordsB, runsB.pointer, count)
                                    runsA.advance(by: count)
                                    runsB.advance(by: count)
                                }
                                while runsA.count > 0 {
                                    realm_sha256_compress(wordsA, runsA.pointer, runsA.count)
                                    runsA.advance(by: runsA.count)
                                }
                                while runsB.count > 0 {
                                    realm_sha256_compress(wordsB, runsB.pointer, runsB.count)
                                    runsB.advance(by: runsB.count)
                                }
                            }
                        }
                    }
                }
            }
        }
        if a.buffered == blockByteCount { a.buffered = 0 }
        if b.buffered == blockByteCount { b.buffered = 0 }
        a.keepTail(sourceA + wholeA * blockByteCount, count: remainingA - wholeA * blockByteCount)
        b.keepTail(sourceB + wholeB * blockByteCount, count: remainingB - wholeB * blockByteCount)
    }

    /// The padding that ends the message: 0x80, zeros up to 56 bytes mod 64, then the length in
    /// bits, big-endian; `count` of the returned bytes (9…72) are used.
    private func padding() -> (bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64), count: Int) {
        var padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0, 0)
        let padCount = (buffered < 56 ? 56 : 120) - buffered
        withUnsafeMutableBytes(of: &padding) { raw in
            raw[0] = 0x80
            raw.storeBytes(of: (length &* 8).bigEndian, toByteOffset: padCount, as: UInt64.self)
        }
        return (padding, padCount + 8)
    }

    /// Pads the message and returns its digest.
    package func finalize() -> SHA256Digest {
        var hasher = self
        let (padding, count) = padding()
        withUnsafeBytes(of: padding) { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        return hasher.digest()
    }

    /// `a.finalize()` and `b.finalize()`, their last blocks compressed two at a time where the
    /// hardware allows (see ``update(_:with:_:with:)``).
    package static func finalize(_ a: SHA256, _ b: SHA256) -> (SHA256Digest, SHA256Digest) {
        var (hasherA, hasherB) = (a, b)
        let (paddingA, countA) = a.padding()
        let (paddingB, countB) = b.padding()
        withUnsafeBytes(of: paddingA) { rawA in
            withUnsafeBytes(of: paddingB) { rawB in
                update(&hasherA, with: UnsafeRawBufferPointer(rebasing: rawA[0..<countA]),
                       &hasherB, with: UnsafeRawBufferPointer(rebasing: rawB[0..<countB]))
            }
        }
        return (hasherA.digest(), hasherB.digest())
    }

    /// The digest of a padded message: the state words, big-endian.
    private func digest() -> SHA256Digest {
        var digest = SHA256Digest()
        withUnsafeBytes(of: h) { state in
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
        if implementation == .hardware {
            // Safe: `h` is a tuple of eight UInt32s, so its memory is eight contiguous, aligned
            // UInt32s, which the rebinding names and the C function updates, and nothing else;
            // `source` holds `blocks` × 64 bytes (the callers' buffers); no pointer is kept.
            withUnsafeMutablePointer(to: &h) { state in
                state.withMemoryRebound(to: UInt32.self, capacity: 8) { realm_sha256_compress($0, source, blocks) }
            }
            return
        }
        var (a0, b0, c0, d0, e0, f0, g0, h0) = h
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            // The constants K, shared with the hardware compression: `realm_sha256_round_constants`.
            // Safe: the pointer is to a copy of the 64-word table that lives for the closure,
            // bound to UInt32 (a tuple of UInt32s is 64 contiguous ones); `k` reads only k[0…63].
            withUnsafePointer(to: realm_sha256_round_constants) { $0.withMemoryRebound(to: UInt32.self, capacity: 64) { k in
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
            } }
            // The message schedule is derived from the message (and, in HMAC, from the key).
            w.initialize(repeating: 0)
        }
        h = (a0, b0, c0, d0, e0, f0, g0, h0)
    }
}

/// The blocks one message of a paired update still has to compress: a first run (the buffered
/// block, or the message's whole blocks), then possibly a second (the whole blocks after the
/// buffered one).
private struct BlockRuns {
    private(set) var pointer: UnsafeRawPointer
    private(set) var count: Int
    private var next: UnsafeRawPointer
    private var nextCount: Int

    init(buffer: UnsafeRawPointer?, source: UnsafeRawPointer, whole: Int) {
        if let buffer {
            (pointer, count, next, nextCount) = (buffer, 1, source, whole)
        } else {
            (pointer, count, next, nextCount) = (source, whole, source, 0)
        }
    }

    /// Marks `blocks` (at most `count`) of the current run compressed.
    mutating func advance(by blocks: Int) {
        pointer += blocks * SHA256.blockByteCount
        count -= blocks
        if count == 0 {
            (pointer, count, nextCount) = (next, nextCount, 0)
        }
    }
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

    /// Overwrites the digest with zeros: for a derived key, once it has been used.
    package mutating func wipe() { words = (0, 0, 0, 0) }

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
