#if REALM_AES_HARDWARE && (arch(x86_64) || arch(arm64))
import Builtin
#endif

/// The AES rounds on the CPU's AES instructions: AES-NI on x86-64, the ARMv8 Cryptography
/// Extension on arm64. A round is one instruction that touches no memory but the round key and
/// takes the same time for every input, so this path is constant-time by construction, and about
/// a thousand times faster than `PortableAES` (AES-NI on the shared test machine, 4 KiB pages:
/// 1.5–3.2 GB/s in CTR, 1.8–4.2 GB/s for CBC decryption, 0.63–0.70 GB/s for the serial CBC
/// encryption, which waits on each block's 14 rounds).
///
/// **How Swift reaches the instructions.** LLVM exposes them as intrinsics
/// (`llvm.x86.aesni.aesenc`, `aesenclast`, `aesdec`, `aesdeclast`, `aesimc`; `llvm.aarch64.crypto.aese`,
/// `aesd`, `aesmc`, `aesimc`), pure functions of `<2 x i64>` or `<16 x i8>` vectors. Binding
/// them with `@_silgen_name`, as `Prefetch` binds `llvm.prefetch`, does not work for these: the
/// compiler crashes ("Cannot select: intrinsic llvm.x86.aesni.aesenc", Swift 6.3), even with
/// `-Xcc -maes`. Swift declares the function with its own attributes, without the intrinsic's
/// `nounwind memory(none)` (`@_effects(readnone)` does not add them), and an AES pattern only
/// matches the memory-free form; the same IR compiled by clang, whose parser restores intrinsic
/// attributes, selects `aesenc`. (`llvm.prefetch` touches memory anyway, so it is unaffected.)
/// `@_extern(c)` refuses SIMD types. The `Builtin` module's `int_…` functions declare the
/// intrinsic through LLVM itself and compile to the single instruction. They need what the
/// default build does not have, so the path is opt-in:
///
/// - the experimental feature `BuiltinModule` (to `import Builtin`), and
/// - on x86-64, code generation for AES (`-Xcc -maes`, which Swift passes on as the `+aes` target
///   feature of every function); without it instruction selection fails the same way. The flag
///   only allows the instructions: the compiler emits them nowhere but at these intrinsics, which
///   run only after `CPUFeatures.hasAES` said yes, so the binary still runs on a CPU without AES.
///   Apple's arm64 targets include the `aes` feature already; for Linux arm64 `Package.swift`
///   passes `-Xcc -march=armv8-a+aes` (neither arm64 build has been compiled yet: the test
///   machine is x86-64 without an arm64 standard library; the arm64 intrinsics were checked to
///   lower to `llvm.aarch64.crypto.aese/aesd/aesmc/aesimc` on `<16 x i8>`).
///
/// `Package.swift` adds them (with the `REALM_AES_HARDWARE` condition) when the build runs
/// with `REALM_AES_HARDWARE=1` in the environment; it cannot add them by default, since SwiftPM
/// refuses unsafe flags (`-Xcc -maes`) in a package that others depend on by version.
///
/// The key schedule is `PortableAES.expandKey` for both paths (once per key, constant-time); the
/// decryption keys of the "equivalent inverse cipher" that `aesdec`/`aesd` expect are the
/// encryption keys in reverse order with InvMixColumns applied to the 13 inner ones
/// (`AES256.init`).
enum HardwareAES {
    #if REALM_AES_HARDWARE && (arch(x86_64) || arch(arm64))
    /// Whether this build contains the hardware rounds.
    static let isCompiled = true
    #else
    static let isCompiled = false
    #endif
}

#if REALM_AES_HARDWARE && arch(x86_64)
extension HardwareAES: AESRounds {
    typealias Vector = Builtin.Vec2xInt64

    @inline(__always)
    static func vector(_ block: AESBlock) -> Vector {
        unsafeBitCast(SIMD2<UInt64>(block.low, block.high), to: Vector.self)
    }

    @inline(__always)
    static func block(_ vector: Vector) -> AESBlock {
        let lanes = unsafeBitCast(vector, to: SIMD2<UInt64>.self)
        return AESBlock(low: lanes[0], high: lanes[1])
    }

    @inline(__always)
    static func key(_ keys: UnsafeRawPointer, _ index: Int) -> Vector {
        vector(AESBlock(loadingFrom: keys + 16 * index))
    }

    @inline(__always)
    static func encrypt(_ input: AESBlock, keys: UnsafeRawPointer) -> AESBlock {
        var s = vector(input ^ AESBlock(loadingFrom: keys))
        for round in 1..<AES256.rounds { s = Builtin.int_x86_aesni_aesenc(s, key(keys, round)) }
        return block(Builtin.int_x86_aesni_aesenclast(s, key(keys, AES256.rounds)))
    }

    @inline(__always)
    static func decrypt(_ input: AESBlock, keys: UnsafeRawPointer) -> AESBlock {
        let keys = keys + AES256.decryptionKeysOffset
        var s = vector(input ^ AESBlock(loadingFrom: keys))
        for round in 1..<AES256.rounds { s = Builtin.int_x86_aesni_aesdec(s, key(keys, round)) }
        return block(Builtin.int_x86_aesni_aesdeclast(s, key(keys, AES256.rounds)))
    }

    /// Four independent blocks at once: a round's latency is several cycles but the unit
    /// accepts one per cycle, so interleaving keeps it busy (CTR, CBC decryption).
    @inline(__always)
    static func encrypt4(_ b: (AESBlock, AESBlock, AESBlock, AESBlock), keys: UnsafeRawPointer)
        -> (AESBlock, AESBlock, AESBlock, AESBlock) {
        let k0 = AESBlock(loadingFrom: keys)
        var s0 = vector(b.0 ^ k0), s1 = vector(b.1 ^ k0), s2 = vector(b.2 ^ k0), s3 = vector(b.3 ^ k0)
        for round in 1..<AES256.rounds {
            let k = key(keys, round)
            s0 = Builtin.int_x86_aesni_aesenc(s0, k)
            s1 = Builtin.int_x86_aesni_aesenc(s1, k)
            s2 = Builtin.int_x86_aesni_aesenc(s2, k)
            s3 = Builtin.int_x86_aesni_aesenc(s3, k)
        }
        let k = key(keys, AES256.rounds)
        return (block(Builtin.int_x86_aesni_aesenclast(s0, k)), block(Builtin.int_x86_aesni_aesenclast(s1, k)),
                block(Builtin.int_x86_aesni_aesenclast(s2, k)), block(Builtin.int_x86_aesni_aesenclast(s3, k)))
    }

    @inline(__always)
    static func decrypt4(_ b: (AESBlock, AESBlock, AESBlock, AESBlock), keys: UnsafeRawPointer)
        -> (AESBlock, AESBlock, AESBlock, AESBlock) {
        let keys = keys + AES256.decryptionKeysOffset
        let k0 = AESBlock(loadingFrom: keys)
        var s0 = vector(b.0 ^ k0), s1 = vector(b.1 ^ k0), s2 = vector(b.2 ^ k0), s3 = vector(b.3 ^ k0)
        for round in 1..<AES256.rounds {
            let k = key(keys, round)
            s0 = Builtin.int_x86_aesni_aesdec(s0, k)
            s1 = Builtin.int_x86_aesni_aesdec(s1, k)
            s2 = Builtin.int_x86_aesni_aesdec(s2, k)
            s3 = Builtin.int_x86_aesni_aesdec(s3, k)
        }
        let k = key(keys, AES256.rounds)
        return (block(Builtin.int_x86_aesni_aesdeclast(s0, k)), block(Builtin.int_x86_aesni_aesdeclast(s1, k)),
                block(Builtin.int_x86_aesni_aesdeclast(s2, k)), block(Builtin.int_x86_aesni_aesdeclast(s3, k)))
    }
}
#elseif REALM_AES_HARDWARE && arch(arm64)
extension HardwareAES: AESRounds {
    typealias Vector = Builtin.Vec16xInt8

    @inline(__always)
    static func vector(_ block: AESBlock) -> Vector {
        unsafeBitCast(SIMD2<UInt64>(block.low, block.high), to: Vector.self)
    }

    @inline(__always)
    static func block(_ vector: Vector) -> AESBlock {
        let lanes = unsafeBitCast(vector, to: SIMD2<UInt64>.self)
        return AESBlock(low: lanes[0], high: lanes[1])
    }

    @inline(__always)
    static func key(_ keys: UnsafeRawPointer, _ index: Int) -> Vector {
        vector(AESBlock(loadingFrom: keys + 16 * index))
    }

    // AESE is AddRoundKey, SubBytes, ShiftRows; AESMC is MixColumns: the last round's key is
    // added by hand. AESD and AESIMC are their inverses, over the equivalent inverse cipher's keys.
    @inline(__always)
    static func encrypt(_ input: AESBlock, keys: UnsafeRawPointer) -> AESBlock {
        var s = vector(input)
        for round in 0..<(AES256.rounds - 1) {
            s = Builtin.int_aarch64_crypto_aesmc(Builtin.int_aarch64_crypto_aese(s, key(keys, round)))
        }
        s = Builtin.int_aarch64_crypto_aese(s, key(keys, AES256.rounds - 1))
        return block(s) ^ AESBlock(loadingFrom: keys + 16 * AES256.rounds)
    }

    @inline(__always)
    static func decrypt(_ input: AESBlock, keys: UnsafeRawPointer) -> AESBlock {
        let keys = keys + AES256.decryptionKeysOffset
        var s = vector(input)
        for round in 0..<(AES256.rounds - 1) {
            s = Builtin.int_aarch64_crypto_aesimc(Builtin.int_aarch64_crypto_aesd(s, key(keys, round)))
        }
        s = Builtin.int_aarch64_crypto_aesd(s, key(keys, AES256.rounds - 1))
        return block(s) ^ AESBlock(loadingFrom: keys + 16 * AES256.rounds)
    }
}
#endif
