/// AES-256 in cipher block chaining mode (NIST SP 800-38A §6.2) over buffers of whole blocks:
/// C(i) = AES(P(i) ⊕ C(i−1)), C(−1) = IV. Realm encrypts its pages this way. Encryption is serial
/// (each block needs the previous ciphertext); decryption is not, and works on several blocks at a
/// time (four through `AESRounds`, eight in `HardwareAES`'s C loop).
extension AES256 {
    /// Encrypts `input` (a multiple of 16 bytes) into `output` (at least as long) with `iv`.
    /// `output` may be the same memory as `input`, but must not overlap it otherwise.
    package func cbcEncrypt(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, iv: AESBlock) {
        precondition(input.count % 16 == 0, "CBC works on whole 16-byte blocks, not \(input.count) bytes")
        precondition(output.count >= input.count, "the output of CBC is shorter than its input")
        guard let source = input.baseAddress, let destination = output.baseAddress else { return }
        switch implementation {
        case .portable:
            Self.cbcEncrypt(PortableAES.self, keys: roundKeys, source, destination, input.count, iv)
        case .hardware:
            HardwareAES.cbcEncrypt(keys: roundKeys, source, destination, input.count, iv: iv)
        }
    }

    /// Decrypts `input` (a multiple of 16 bytes) into `output` (at least as long) with `iv`.
    /// `output` may be the same memory as `input`, but must not overlap it otherwise.
    package func cbcDecrypt(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, iv: AESBlock) {
        precondition(input.count % 16 == 0, "CBC works on whole 16-byte blocks, not \(input.count) bytes")
        precondition(output.count >= input.count, "the output of CBC is shorter than its input")
        guard let source = input.baseAddress, let destination = output.baseAddress else { return }
        switch implementation {
        case .portable:
            Self.cbcDecrypt(PortableAES.self, keys: roundKeys, source, destination, input.count, iv)
        case .hardware:
            HardwareAES.cbcDecrypt(keys: roundKeys, source, destination, input.count, iv: iv)
        }
    }

    @inline(__always)
    private static func cbcEncrypt<Rounds: AESRounds>(
        _: Rounds.Type, keys: UnsafeRawPointer, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
        _ count: Int, _ iv: AESBlock
    ) {
        var previous = iv
        for offset in stride(from: 0, to: count, by: 16) {
            previous = Rounds.encrypt(AESBlock(loadingFrom: source + offset) ^ previous, keys: keys)
            previous.store(to: destination + offset)
        }
    }

    @inline(__always)
    private static func cbcDecrypt<Rounds: AESRounds>(
        _: Rounds.Type, keys: UnsafeRawPointer, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
        _ count: Int, _ iv: AESBlock
    ) {
        // Every ciphertext block is read before the plaintext over it is written (in place).
        var previous = iv
        var offset = 0
        while count - offset >= 64 {
            let c0 = AESBlock(loadingFrom: source + offset), c1 = AESBlock(loadingFrom: source + offset + 16)
            let c2 = AESBlock(loadingFrom: source + offset + 32), c3 = AESBlock(loadingFrom: source + offset + 48)
            let plain = Rounds.decrypt4((c0, c1, c2, c3), keys: keys)
            (plain.0 ^ previous).store(to: destination + offset)
            (plain.1 ^ c0).store(to: destination + offset + 16)
            (plain.2 ^ c1).store(to: destination + offset + 32)
            (plain.3 ^ c2).store(to: destination + offset + 48)
            previous = c3
            offset += 64
        }
        while offset < count {
            let block = AESBlock(loadingFrom: source + offset)
            (Rounds.decrypt(block, keys: keys) ^ previous).store(to: destination + offset)
            previous = block
            offset += 16
        }
    }
}
