/// One implementation of the AES-256 block function over the round keys of an `AES256`
/// (`PortableAES`, `HardwareAES`). The Swift modes are generic over it, so the choice is made once
/// per buffer and the rounds inline into the mode's loop; the hardware path runs its modes over
/// whole buffers in C instead (a call per block would cost more than its rounds, see
/// `HardwareAES`) and uses this protocol for single blocks.
protocol AESRounds {
    /// Encrypts one block; `keys` is `AES256.roundKeys` (encryption keys first).
    static func encrypt(_ block: AESBlock, keys: UnsafeRawPointer) -> AESBlock
    /// Decrypts one block; the implementation chooses which of `AES256.roundKeys`' two
    /// schedules it uses.
    static func decrypt(_ block: AESBlock, keys: UnsafeRawPointer) -> AESBlock
    /// Four independent blocks (an implementation may interleave them).
    static func encrypt4(_ blocks: (AESBlock, AESBlock, AESBlock, AESBlock), keys: UnsafeRawPointer)
        -> (AESBlock, AESBlock, AESBlock, AESBlock)
    static func decrypt4(_ blocks: (AESBlock, AESBlock, AESBlock, AESBlock), keys: UnsafeRawPointer)
        -> (AESBlock, AESBlock, AESBlock, AESBlock)
}

extension AESRounds {
    @inline(__always)
    static func encrypt4(_ b: (AESBlock, AESBlock, AESBlock, AESBlock), keys: UnsafeRawPointer)
        -> (AESBlock, AESBlock, AESBlock, AESBlock) {
        (encrypt(b.0, keys: keys), encrypt(b.1, keys: keys), encrypt(b.2, keys: keys), encrypt(b.3, keys: keys))
    }

    @inline(__always)
    static func decrypt4(_ b: (AESBlock, AESBlock, AESBlock, AESBlock), keys: UnsafeRawPointer)
        -> (AESBlock, AESBlock, AESBlock, AESBlock) {
        (decrypt(b.0, keys: keys), decrypt(b.1, keys: keys), decrypt(b.2, keys: keys), decrypt(b.3, keys: keys))
    }
}

extension PortableAES: AESRounds {}
