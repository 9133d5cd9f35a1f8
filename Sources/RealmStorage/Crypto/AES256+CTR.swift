/// AES-256 in counter mode (NIST SP 800-38A §6.5) over buffers: block i of the input is XORed
/// with AES(counter + i), the counter block read as a 128-bit big-endian integer that wraps.
/// Encryption and decryption are the same operation. The last block may be partial, so any
/// length works.
///
/// The mode is secure only if no counter value repeats under one key (see `AES256`'s essay):
/// the caller owns that rule. A buffer of n bytes uses ⌈n / 16⌉ counter values.
extension AES256 {
    /// XORs `input` with the key stream starting at `counter` into `output` (at least as long).
    /// `output` may be the same memory as `input` (in place), but must not overlap it otherwise.
    package func ctr(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, counter: AESBlock) {
        precondition(output.count >= input.count, "the output of CTR is shorter than its input")
        guard let source = input.baseAddress, let destination = output.baseAddress else { return }
        switch implementation {
        case .portable:
            Self.ctr(PortableAES.self, keys: roundKeys, source, destination, input.count, counter)
        case .hardware:
            // The whole buffer in one C call: a call per block would cost more than its rounds.
            HardwareAES.ctr(keys: roundKeys, source, destination, input.count, counter: counter)
        }
    }

    @inline(__always)
    private static func ctr<Rounds: AESRounds>(
        _: Rounds.Type, keys: UnsafeRawPointer, _ source: UnsafeRawPointer, _ destination: UnsafeMutableRawPointer,
        _ count: Int, _ counter: AESBlock
    ) {
        // The counter as a big-endian 128-bit integer (public, so the carry may branch).
        var high = UInt64(bigEndian: counter.low.littleEndian)
        var low = UInt64(bigEndian: counter.high.littleEndian)
        func next() -> AESBlock {
            defer {
                low &+= 1
                if low == 0 { high &+= 1 }
            }
            return AESBlock(bigEndianHigh: high, low: low)
        }
        var offset = 0
        while count - offset >= 64 {
            let stream = Rounds.encrypt4((next(), next(), next(), next()), keys: keys)
            let p0 = AESBlock(loadingFrom: source + offset), p1 = AESBlock(loadingFrom: source + offset + 16)
            let p2 = AESBlock(loadingFrom: source + offset + 32), p3 = AESBlock(loadingFrom: source + offset + 48)
            (p0 ^ stream.0).store(to: destination + offset)
            (p1 ^ stream.1).store(to: destination + offset + 16)
            (p2 ^ stream.2).store(to: destination + offset + 32)
            (p3 ^ stream.3).store(to: destination + offset + 48)
            offset += 64
        }
        while count - offset >= 16 {
            (AESBlock(loadingFrom: source + offset) ^ Rounds.encrypt(next(), keys: keys)).store(to: destination + offset)
            offset += 16
        }
        if offset < count {
            let stream = Rounds.encrypt(next(), keys: keys)
            withUnsafeBytes(of: (stream.low.littleEndian, stream.high.littleEndian)) { bytes in
                for index in 0..<(count - offset) {
                    destination.storeBytes(of: source.load(fromByteOffset: offset + index, as: UInt8.self) ^ bytes[index],
                                           toByteOffset: offset + index, as: UInt8.self)
                }
            }
        }
    }
}
