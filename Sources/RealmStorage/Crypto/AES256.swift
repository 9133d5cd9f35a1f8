/// AES-256 with its key expanded once, for page encryption.
///
/// # The cryptographic primitives of the storage layer
///
/// `PageCipher` encrypts and authenticates every page of an encrypted file with these
/// primitives (its comment and FORMAT.md give the on-disk layout and why it is safe). The pieces:
///
/// - `AES256`: the block cipher (FIPS-197) with a 32-byte key, two implementations of its rounds
///   behind one round-key layout, and two modes over buffers: CTR (`AES256+CTR.swift`) and CBC
///   (`AES256+CBC.swift`), both NIST SP 800-38A.
/// - `SHA256` (FIPS 180-4) and `HMACSHA256` (RFC 2104), to authenticate a page.
/// - `PageCipher`: the per-file keys derived from the 64-byte user key's two halves and a salt,
///   and the transform of a page to and from its stored form.
/// - `ConstantTime.equals`: comparing a stored MAC with a computed one.
///
/// ## Why each mechanism is safe
///
/// *AES-256* is used only as a block function inside a mode; a 256-bit key leaves a margin even
/// against a quantum search. *CTR* turns AES into a stream: block i of the page is XORed with
/// AES(counter + i). It is secure exactly as long as no counter value is ever used twice under one
/// key — two pages encrypted with overlapping counter ranges reveal the XOR of their plaintexts —
/// so the page format must derive each page write's counter block from something that never
/// repeats (Realm's scheme, below, uses the page's position and a per-page write counter). CTR
/// needs no padding, decrypts with the encryption function, and lets the blocks of a page run in
/// parallel. *CBC* chains each block into the next: an IV reused for the same page leaks only
/// whether the pages share a prefix of blocks, which is why Realm chose it; it needs whole blocks
/// (pages are), and its encryption is serial. Neither mode authenticates: a flipped ciphertext bit
/// flips the same plaintext bit (CTR) or garbles a block and flips a bit of the next (CBC). So
/// every page must also carry an *HMAC-SHA-256* of its ciphertext under an independent key, checked
/// before decryption (encrypt-then-MAC): a forged or stale page fails the check before any byte of
/// it is interpreted. The two keys come from disjoint halves of the 64-byte user key, so neither
/// primitive can leak the other's key.
///
/// Realm (realm-core, `encrypted_file_mapping.cpp`) does this with AES-256-CBC over 4 KiB pages
/// and HMAC-SHA-224: bytes 0–31 of the user key are the AES key and bytes 32–63 the HMAC key; each
/// page's IV is a 32-bit write counter followed by the page's 64-bit file position, and a header
/// page in front of every 64 data pages stores, per page, the current and the previous IV and
/// HMAC, so a write torn between the header and the page still decrypts to the old page. Ours
/// uses CTR with a counter from (transaction, page) — unique in a file, because the storage layer
/// never stamps one transaction on two pages at one number — and per-file keys, so it needs no
/// IV table; the split of the user key into an AES half and an HMAC half is the same.
///
/// ## What is constant-time, and why
///
/// An attacker who shares the machine can time us or watch the cache; nothing observable may
/// depend on a secret (a key, a plaintext). Lengths, counters, IVs and the choice of
/// implementation are public.
///
/// - `HardwareAES`: each round is one instruction whose timing does not depend on its operands,
///   and the only memory it reads is the round keys, at fixed offsets.
/// - `PortableAES`: no table lookups and no branches on secret data; the S-box is computed in
///   GF(2^8) with masks, eight bytes per 64-bit word (see its comment). Slow, but safe: a
///   table-driven AES would be faster and leak the key through the cache.
/// - The key schedule is the portable one for both paths, so it is constant-time too.
/// - `SHA256` and `HMACSHA256` use only additions, rotations and logic on 32-bit words, and their
///   branches depend on lengths only.
/// - `ConstantTime.equals` reads every byte of both MACs and folds the differences with OR, so
///   its time does not reveal where two MACs first differ (a byte-by-byte early exit would let an
///   attacker forge a MAC one byte at a time).
///
/// Integer multiplication by a constant (in `PortableAES`) is constant-time on every x86-64 and
/// arm64 core we target. Key material is zeroed when an `AES256` is released; the structs
/// (`HMACSHA256`'s padded-key states, `AESBlock`s on the stack) are not, as Swift may copy them.
///
/// ## The hardware path
///
/// `AES256.Implementation.best` is `.hardware` when the build contains the hardware rounds
/// (`HardwareAES.isCompiled`: every x86-64 and arm64 build, through the package's C target
/// `CRealmCrypto`, which needs no compiler flags; see `HardwareAES` for why C) and the CPU
/// has AES instructions (`CPUFeatures.hasAES`: the `aes` flag of `/proc/cpuinfo` on Linux, which
/// the kernel sets from CPUID leaf 1, ECX bit 25, or from the arm64 HWCAP; `sysctl` on Apple
/// platforms). Swift cannot execute CPUID itself (no inline assembly, and LLVM has no CPUID
/// intrinsic), which is why the operating system is asked. Otherwise `.portable`. On the x86-64
/// test machine the hardware path encrypts a 4 KiB page in about 1.1 µs (CTR), hundreds of times
/// faster than the portable one (about 0.8 ms).
///
/// ## Memory
///
/// The round keys live in one 480-byte allocation, 16-byte aligned: the 15 encryption round keys,
/// then the 15 round keys of the equivalent inverse cipher (for `aesdec`/`aesd`). Buffers in
/// and out may be unaligned and may be the same buffer; no mode allocates.
package final class AES256: @unchecked Sendable {
    // @unchecked Sendable: `roundKeys` is written only in `init` and read-only afterwards, so
    // concurrent encryptions share it safely; `deinit` runs when no other reference exists.

    /// AES-256 has 14 rounds, so 15 round keys.
    package static let rounds = 14
    /// Where the decryption round keys start in `roundKeys`.
    static let decryptionKeysOffset = 16 * (rounds + 1)

    /// Which implementation of the rounds encrypts.
    package enum Implementation: Sendable, Equatable, CustomStringConvertible {
        /// AES-NI (x86-64) or the ARMv8 Cryptography Extension (arm64).
        case hardware
        /// `PortableAES`: constant-time, table-free, slow.
        case portable

        /// Whether this build has the hardware rounds (x86-64 and arm64; see `HardwareAES`).
        package static let isHardwareCompiled = HardwareAES.isCompiled
        /// Whether this build has the hardware rounds and this CPU the instructions.
        package static let isHardwareAvailable = isHardwareCompiled && CPUFeatures.hasAES

        /// The fastest safe implementation here.
        package static var best: Implementation { isHardwareAvailable ? .hardware : .portable }

        package var description: String { self == .hardware ? "hardware" : "portable" }
    }

    package let implementation: Implementation
    /// 15 encryption round keys, then 15 decryption round keys (see "Memory" above).
    let roundKeys: UnsafeMutableRawPointer

    /// Expands a 32-byte key. Asking for `.hardware` where it is not available is a programmer
    /// error (check `Implementation.isHardwareAvailable`).
    package init(key: UnsafeRawBufferPointer, implementation: Implementation = .best) {
        precondition(key.count == 32, "an AES-256 key is 32 bytes, not \(key.count)")
        precondition(implementation == .portable || Implementation.isHardwareAvailable,
                     "hardware AES is not available in this build or on this CPU")
        self.implementation = implementation
        // Pointer ownership: allocated here, zeroed and freed in deinit, never handed out.
        roundKeys = UnsafeMutableRawPointer.allocate(byteCount: 2 * Self.decryptionKeysOffset, alignment: 16)
        PortableAES.expandKey(key, into: roundKeys)
        let decryption = roundKeys + Self.decryptionKeysOffset
        for index in 0...Self.rounds {
            var key = PortableAES.roundKey(roundKeys, Self.rounds - index)
            if index != 0 && index != Self.rounds {
                key = AESBlock(low: PortableAES.inverseMixColumns(key.low), high: PortableAES.inverseMixColumns(key.high))
            }
            key.store(to: decryption + 16 * index)
        }
    }

    /// Expands a 32-byte key given as an array.
    package convenience init(key: [UInt8], implementation: Implementation = .best) {
        self.init(key: key.withUnsafeBytes { UnsafeRawBufferPointer($0) }, implementation: implementation)
    }

    deinit {
        roundKeys.initializeMemory(as: UInt8.self, repeating: 0, count: 2 * Self.decryptionKeysOffset)
        roundKeys.deallocate()
    }

    /// Encrypts one block.
    package func encrypt(_ block: AESBlock) -> AESBlock {
        switch implementation {
        case .portable: return PortableAES.encrypt(block, keys: roundKeys)
        case .hardware: return HardwareAES.encrypt(block, keys: roundKeys)
        }
    }

    /// Decrypts one block.
    package func decrypt(_ block: AESBlock) -> AESBlock {
        switch implementation {
        case .portable: return PortableAES.decrypt(block, keys: roundKeys)
        case .hardware: return HardwareAES.decrypt(block, keys: roundKeys)
        }
    }
}
