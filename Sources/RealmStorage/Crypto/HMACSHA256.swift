/// HMAC-SHA-256 (RFC 2104, FIPS 198-1): SHA-256((K ⊕ opad) ‖ SHA-256((K ⊕ ipad) ‖ message)).
///
/// The key is absorbed once, in `init`: the two hash states after the padded key's block are
/// kept, so authenticating a 4 KiB page costs its 64 compressions plus two, not four. A key
/// longer than 64 bytes is hashed first, as the RFC says.
///
/// Safety: HMAC stays a secure MAC even if SHA-256's collision resistance weakens (its security
/// rests on the compression function being a PRF). Verify with `isValid`, which compares in
/// constant time. The two saved states are derived from the key and, being a struct, may be
/// copied by Swift; they are not zeroed.
package struct HMACSHA256: Sendable {
    private let inner: SHA256
    private let outer: SHA256

    /// Absorbs `key`; both hash states use the SHA-256 `implementation`.
    package init(key: UnsafeRawBufferPointer, implementation: SHA256.Implementation = .best) {
        var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &block) { raw in
            if key.count > SHA256.blockByteCount {
                SHA256.hash(key, implementation: implementation).withUnsafeBytes { raw.copyMemory(from: $0) }
            } else if !key.isEmpty {
                raw.copyMemory(from: key)
            }
        }
        func state(padding: UInt8) -> SHA256 {
            var padded = block
            var hasher = SHA256(implementation: implementation)
            withUnsafeMutableBytes(of: &padded) { raw in
                for index in raw.indices { raw[index] ^= padding }
                hasher.update(UnsafeRawBufferPointer(raw))
                _ = raw.initializeMemory(as: UInt8.self, repeating: 0)
            }
            return hasher
        }
        inner = state(padding: 0x36)
        outer = state(padding: 0x5C)
        withUnsafeMutableBytes(of: &block) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }

    /// Absorbs `key`, given as an array.
    package init(key: [UInt8], implementation: SHA256.Implementation = .best) {
        self = key.withUnsafeBytes { HMACSHA256(key: $0, implementation: implementation) }
    }

    /// The authentication code of `message`.
    package func code(for message: UnsafeRawBufferPointer) -> SHA256Digest {
        var hasher = inner
        hasher.update(message)
        return finalize(hasher)
    }

    /// The authentication code of `message`.
    package func code(for message: [UInt8]) -> SHA256Digest {
        message.withUnsafeBytes { code(for: $0) }
    }

    /// A hash state with the key absorbed: feed the message in pieces with `update`, then pass
    /// it to ``finalize(_:)`` (for a message that is not one buffer).
    package func hasher() -> SHA256 { inner }

    /// The authentication code of what `hasher` (from ``hasher()``) absorbed.
    package func finalize(_ hasher: SHA256) -> SHA256Digest {
        let innerDigest = hasher.finalize()
        var outerHasher = outer
        innerDigest.withUnsafeBytes { outerHasher.update($0) }
        return outerHasher.finalize()
    }

    /// The authentication codes of two messages, each given as two pieces (`head` ‖ `body`; a
    /// page's tag covers its 8-byte number, then its bytes 8..<length). The same codes as two
    /// calls, but where the hardware SHA-256 runs, the two messages' blocks are compressed side
    /// by side (``SHA256/update(_:with:_:with:)``: one stream leaves the SHA instructions'
    /// latency idle, two fill it); otherwise the two are computed one after the other.
    package func codes(for first: (head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer),
                       _ second: (head: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer)) -> (SHA256Digest, SHA256Digest) {
        var (hasherA, hasherB) = (inner, inner)
        SHA256.update(&hasherA, with: first.head, &hasherB, with: second.head)
        SHA256.update(&hasherA, with: first.body, &hasherB, with: second.body)
        let (innerA, innerB) = SHA256.finalize(hasherA, hasherB)
        var (outerA, outerB) = (outer, outer)
        innerA.withUnsafeBytes { a in innerB.withUnsafeBytes { b in SHA256.update(&outerA, with: a, &outerB, with: b) } }
        return SHA256.finalize(outerA, outerB)
    }

    /// Whether `code` (the 32 stored bytes) authenticates `message`, compared in constant time.
    package func isValid(_ code: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        self.code(for: message).withUnsafeBytes { ConstantTime.equals($0, code) }
    }
}
