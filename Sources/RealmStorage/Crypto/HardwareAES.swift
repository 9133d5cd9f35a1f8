import CRealmCrypto

/// The AES rounds on the CPU's AES instructions: AES-NI on x86-64, the ARMv8 Cryptography
/// Extension on arm64. A round is one instruction that touches no memory but the round key and
/// takes the same time for every input, so this path is constant-time by construction, and
/// hundreds of times faster than `PortableAES`.
///
/// **Why the rounds are in C** (the package's own target `CRealmCrypto`, not a dependency).
/// The instructions must be compiled into a binary that also runs on CPUs without them, so only
/// the functions that use them may be compiled for the AES target feature, and they may run only
/// after `CPUFeatures.hasAES` said yes. C says this per function
/// (`__attribute__((target("aes")))`); Swift cannot:
///
/// - Swift has no per-function target attribute; the only way to enable AES code generation is
///   for the whole module, with `-Xcc -maes` (x86-64) or `-Xcc -march=armv8-a+aes` (Linux arm64),
///   which are unsafe flags: SwiftPM refuses them in a package that others depend on by version.
/// - Binding the LLVM intrinsics (`llvm.x86.aesni.aesenc`, …) with `@_silgen_name`, as `Prefetch`
///   binds `llvm.prefetch`, crashes the compiler ("Cannot select: intrinsic
///   llvm.x86.aesni.aesenc", Swift 6.3): Swift declares the function without the intrinsic's
///   `memory(none)`, and the instruction patterns only match the memory-free form.
/// - The `Builtin` module's `int_x86_aesni_…` functions do compile to the instructions, but need
///   the experimental `BuiltinModule` feature and still the unsafe flag.
///
/// The C target needs no flags at all. So hardware AES is the default wherever the CPU has it.
///
/// **Calls across the language boundary cost a few nanoseconds each**, so the modes over buffers
/// are in C too: one call per buffer, with CTR and CBC decryption eight blocks interleaved (a
/// round takes several cycles but the unit starts one per cycle). Through `AESRounds`, one and
/// four blocks per call, the 4 KiB-page throughput was lower: CTR 3.8 GB/s either way, but CBC
/// decryption 2.3 GB/s instead of 5.4 and CBC encryption 0.84 instead of 0.99.
///
/// The key schedule is `PortableAES.expandKey` for both paths (once per key, constant-time); the
/// decryption keys of the "equivalent inverse cipher" that `aesdec`/`aesd` expect are the
/// encryption keys in reverse order with InvMixColumns applied to the 13 inner ones
/// (`AES256.init`). The C functions read exactly that 480-byte layout.
///
/// Every function here needs `isCompiled` (the C file has the instructions for this
/// architecture; on any other it compiles without them, and its functions trap) and a CPU with
/// AES: `AES256.init` admits `.hardware` only then.
enum HardwareAES {
    /// Whether this build contains the hardware rounds (x86-64 or arm64).
    static let isCompiled = realm_aes_hardware_compiled() != 0

    /// AES-256-CTR over `count` bytes (see `AES256.ctr(_:into:counter:)`), in one C call.
    ///
    /// Safe: `keys` is an `AES256`'s 480 round-key bytes, alive for the call; `source` and
    /// `destination` are valid for `count` bytes (the caller's buffers, checked by `AES256.ctr`);
    /// the C function reads and writes nothing else and keeps no pointer.
    static func ctr(keys: UnsafeRawPointer, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
                    _ count: Int, counter: AESBlock) {
        // The counter block as the 128-bit big-endian integer it stands for.
        realm_aes256_ctr(keys, source, destination, count,
                         UInt64(bigEndian: counter.low.littleEndian), UInt64(bigEndian: counter.high.littleEndian))
    }


    /// AES-256-CBC encryption of `count` bytes, a multiple of 16 (see `AES256.cbcEncrypt`).
    ///
    /// Safe: as for `ctr`; `AES256.cbcEncrypt` checked that `count` is whole blocks.
    static func cbcEncrypt(keys: UnsafeRawPointer, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
                           _ count: Int, iv: AESBlock) {
        realm_aes256_cbc_encrypt(keys, source, destination, count, realm_aes_block(iv))
    }

    /// AES-256-CBC decryption of `count` bytes, a multiple of 16 (see `AES256.cbcDecrypt`).
    ///
    /// Safe: as for `cbcEncrypt`.
    static func cbcDecrypt(keys: UnsafeRawPointer, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
                           _ count: Int, iv: AESBlock) {
        realm_aes256_cbc_decrypt(keys, source, destination, count, realm_aes_block(iv))
    }
}

// Safe, for each function below: `keys` is an `AES256`'s 480 round-key bytes, alive for the
// call (`AESRounds`' contract); the blocks travel by value, and the C function reads no other
// memory and keeps no pointer.
extension HardwareAES: AESRounds {
    @inline(__always)
    static func encrypt(_ block: AESBlock, keys: UnsafeRawPointer) -> AESBlock {
        AESBlock(realm_aes256_encrypt1(keys, realm_aes_block(block)))
    }

    @inline(__always)
    static func decrypt(_ block: AESBlock, keys: UnsafeRawPointer) -> AESBlock {
        AESBlock(realm_aes256_decrypt1(keys, realm_aes_block(block)))
    }

    /// Four independent blocks in one call, interleaved in C.
    @inline(__always)
    static func encrypt4(_ b: (AESBlock, AESBlock, AESBlock, AESBlock), keys: UnsafeRawPointer)
        -> (AESBlock, AESBlock, AESBlock, AESBlock) {
        AESBlock.tuple(realm_aes256_encrypt4(keys, realm_aes_block4(b)))
    }

    @inline(__always)
    static func decrypt4(_ b: (AESBlock, AESBlock, AESBlock, AESBlock), keys: UnsafeRawPointer)
        -> (AESBlock, AESBlock, AESBlock, AESBlock) {
        AESBlock.tuple(realm_aes256_decrypt4(keys, realm_aes_block4(b)))
    }
}

// The C block types have `AESBlock`'s layout by definition (`low` = bytes 0–7 little-endian,
// `high` = bytes 8–15), so converting is copying two words.
extension realm_aes_block {
    @inline(__always)
    init(_ block: AESBlock) { self.init(low: block.low, high: block.high) }
}

extension realm_aes_block4 {
    @inline(__always)
    init(_ b: (AESBlock, AESBlock, AESBlock, AESBlock)) {
        self.init(b0: realm_aes_block(b.0), b1: realm_aes_block(b.1), b2: realm_aes_block(b.2), b3: realm_aes_block(b.3))
    }
}

extension AESBlock {
    @inline(__always)
    init(_ block: realm_aes_block) { self.init(low: block.low, high: block.high) }

    @inline(__always)
    static func tuple(_ blocks: realm_aes_block4) -> (AESBlock, AESBlock, AESBlock, AESBlock) {
        (AESBlock(blocks.b0), AESBlock(blocks.b1), AESBlock(blocks.b2), AESBlock(blocks.b3))
    }
}
