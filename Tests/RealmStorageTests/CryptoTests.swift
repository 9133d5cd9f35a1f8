import Testing
@testable import RealmStorage
import RealmTestSupport

/// The cryptographic primitives of issue 18 (`Sources/RealmStorage/Crypto`): known-answer tests
/// from FIPS-197, NIST SP 800-38A, FIPS 180-4 and RFC 4231, run against every AES and SHA-256
/// implementation this build and CPU have (the portable ones always, forced), plus agreement
/// between the implementations, round trips on unaligned and in-place buffers, and MAC
/// comparison.
@Suite struct CryptoTests {
    /// The implementations to test: the portable one always, the hardware one where it exists
    /// (every x86-64 or arm64 build, on a CPU with AES).
    static let implementations: [AES256.Implementation] =
        AES256.Implementation.isHardwareAvailable ? [.portable, .hardware] : [.portable]
    /// The same for SHA-256 (x86-64 with SHA-NI, arm64 with SHA2).
    static let shaImplementations: [SHA256.Implementation] =
        SHA256.Implementation.isHardwareAvailable ? [.portable, .hardware] : [.portable]

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8.filter { $0 != 32 })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
    }

    static let sp80038AKey = bytes("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
    static let sp80038APlaintext = bytes("""
        6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51 \
        30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710
        """)

    /// Whether two byte sequences are equal (a Bool, so a failure does not print 4 KiB twice).
    static func same(_ a: some Sequence<UInt8>, _ b: some Sequence<UInt8>) -> Bool { a.elementsEqual(b) }


    // MARK: AES-256

    /// FIPS-197 appendix C.3: the AES-256 example, both directions.
    @Test(arguments: implementations) func fips197AppendixC3(_ implementation: AES256.Implementation) {
        let aes = AES256(key: Self.bytes("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"),
                         implementation: implementation)
        let plaintext = AESBlock(Self.bytes("00112233445566778899aabbccddeeff"))
        let ciphertext = aes.encrypt(plaintext)
        #expect(ciphertext.bytes == Self.bytes("8ea2b7ca516745bfeafc49904b496089"))
        #expect(aes.decrypt(ciphertext) == plaintext)
    }

    /// NIST SP 800-38A F.2.5 and F.2.6: CBC-AES256 encryption and decryption.
    @Test(arguments: implementations) func sp80038ACBC(_ implementation: AES256.Implementation) {
        let aes = AES256(key: Self.sp80038AKey, implementation: implementation)
        let iv = AESBlock(Self.bytes("000102030405060708090a0b0c0d0e0f"))
        let expected = Self.bytes("""
            f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d \
            39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b
            """)
        var ciphertext = [UInt8](repeating: 0, count: 64)
        Self.sp80038APlaintext.withUnsafeBytes { input in
            ciphertext.withUnsafeMutableBytes { aes.cbcEncrypt(input, into: $0, iv: iv) }
        }
        #expect(ciphertext == expected)
        // Decryption four blocks at a time, and one at a time (the tail loop).
        var plaintext = [UInt8](repeating: 0, count: 64)
        expected.withUnsafeBytes { input in plaintext.withUnsafeMutableBytes { aes.cbcDecrypt(input, into: $0, iv: iv) } }
        #expect(plaintext == Self.sp80038APlaintext)
        var firstThree = [UInt8](repeating: 0, count: 48)
        expected.withUnsafeBytes { input in
            firstThree.withUnsafeMutableBytes { aes.cbcDecrypt(UnsafeRawBufferPointer(rebasing: input[0..<48]), into: $0, iv: iv) }
        }
        #expect(firstThree == Array(Self.sp80038APlaintext[0..<48]))
    }

    /// NIST SP 800-38A F.5.5 and F.5.6: CTR-AES256 (the same operation both ways), whole and
    /// with a partial last block.
    @Test(arguments: implementations) func sp80038ACTR(_ implementation: AES256.Implementation) {
        let aes = AES256(key: Self.sp80038AKey, implementation: implementation)
        let counter = AESBlock(Self.bytes("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
        let expected = Self.bytes("""
            601ec313775789a5b7a7f504bbf3d228 f443e3ca4d62b59aca84e990cacaf5c5 \
            2b0930daa23de94ce87017ba2d84988d dfc9c58db67aada613c2dd08457941a6
            """)
        for count in [64, 50, 16, 7] {
            var output = [UInt8](repeating: 0, count: count)
            Self.sp80038APlaintext.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { aes.ctr(UnsafeRawBufferPointer(rebasing: input[0..<count]), into: $0, counter: counter) }
            }
            #expect(output == Array(expected[0..<count]), "\(count) bytes")
            var decrypted = [UInt8](repeating: 0, count: count)
            output.withUnsafeBytes { input in decrypted.withUnsafeMutableBytes { aes.ctr(input, into: $0, counter: counter) } }
            #expect(decrypted == Array(Self.sp80038APlaintext[0..<count]), "\(count) bytes")
        }
    }

    /// The counter is one 128-bit big-endian integer: its low 64 bits carry into the high 64.
    @Test(arguments: implementations) func ctrCounterCarries(_ implementation: AES256.Implementation) {
        let aes = AES256(key: Self.sp80038AKey, implementation: implementation)
        let input = [UInt8](repeating: 0, count: 32)
        var output = input
        input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { aes.ctr(source, into: $0, counter: AESBlock(bigEndianHigh: 7, low: .max)) }
        }
        #expect(Array(output[0..<16]) == aes.encrypt(AESBlock(bigEndianHigh: 7, low: .max)).bytes)
        #expect(Array(output[16..<32]) == aes.encrypt(AESBlock(bigEndianHigh: 8, low: 0)).bytes)
    }

    /// Hardware and portable rounds agree on random keys and blocks, and in both modes over a
    /// page.
    @Test(.enabled(if: AES256.Implementation.isHardwareAvailable, "needs an x86-64 or arm64 CPU with AES"))
    func hardwareAgreesWithPortable() {
        var generator = SplitMix64(seed: 18)
        for _ in 0..<16 {
            let key = generator.bytes(32)
            let hardware = AES256(key: key, implementation: .hardware)
            let portable = AES256(key: key, implementation: .portable)
            for _ in 0..<8 {
                let block = AESBlock(low: generator.next(), high: generator.next())
                #expect(hardware.encrypt(block) == portable.encrypt(block))
                #expect(hardware.decrypt(block) == portable.decrypt(block))
            }
            let page = generator.bytes(4096 + 5)
            let iv = AESBlock(low: generator.next(), high: generator.next())
            for mode in ["ctr", "cbcEncrypt", "cbcDecrypt"] {
                let count = mode == "ctr" ? page.count : 4096
                var outputs = [[UInt8]](repeating: [UInt8](repeating: 0, count: count), count: 2)
                for (index, aes) in [hardware, portable].enumerated() {
                    page.withUnsafeBytes { raw in
                        let input = UnsafeRawBufferPointer(rebasing: raw[0..<count])
                        outputs[index].withUnsafeMutableBytes { output in
                            switch mode {
                            case "ctr": aes.ctr(input, into: output, counter: iv)
                            case "cbcEncrypt": aes.cbcEncrypt(input, into: output, iv: iv)
                            default: aes.cbcDecrypt(input, into: output, iv: iv)
                            }
                        }
                    }
                }
                #expect(Self.same(outputs[0], outputs[1]), "\(mode)")
            }
        }
    }

    /// The hardware modes run in C with their own loops (eight blocks, then one, then a partial
    /// one): they agree with the portable modes at every length around those steps, at odd
    /// offsets, in place, and with a counter that wraps from 2^128 − 1 to 0 inside the
    /// eight-block loop.
    @Test(.enabled(if: AES256.Implementation.isHardwareAvailable, "needs an x86-64 or arm64 CPU with AES"))
    func hardwareModesAgreeAtEveryLength() {
        var generator = SplitMix64(seed: 128)
        let key = generator.bytes(32)
        let hardware = AES256(key: key, implementation: .hardware)
        let portable = AES256(key: key, implementation: .portable)
        let data = generator.bytes(403)
        let counters = [AESBlock(bigEndianHigh: .max, low: .max - 3), AESBlock(low: generator.next(), high: generator.next())]
        for count in Array(0...290) + [399, 400] {
            let offset = count % 3
            let input = Array(data[offset..<(offset + count)])
            for (index, counter) in counters.enumerated() {
                let expected = Self.ctr(portable, input, counter: counter)
                #expect(Self.same(Self.ctr(hardware, input, counter: counter), expected), "CTR \(count) bytes, counter \(index)")
                var inPlace = input
                inPlace.withUnsafeMutableBytes { hardware.ctr(UnsafeRawBufferPointer($0), into: $0, counter: counter) }
                #expect(Self.same(inPlace, expected), "CTR in place, \(count) bytes")
            }
            guard count % 16 == 0 else { continue }
            let iv = counters[1]
            for decrypting in [false, true] {
                func run(_ aes: AES256, _ bytes: inout [UInt8]) {
                    bytes.withUnsafeMutableBytes { buffer in  // in place
                        if decrypting { aes.cbcDecrypt(UnsafeRawBufferPointer(buffer), into: buffer, iv: iv) }
                        else { aes.cbcEncrypt(UnsafeRawBufferPointer(buffer), into: buffer, iv: iv) }
                    }
                }
                var viaHardware = input, viaPortable = input
                run(hardware, &viaHardware)
                run(portable, &viaPortable)
                #expect(Self.same(viaHardware, viaPortable), "CBC \(decrypting ? "decryption" : "encryption"), \(count) bytes")
            }
        }
    }

    /// `input` through `aes.ctr`, out of place.
    static func ctr(_ aes: AES256, _ input: [UInt8], counter: AESBlock) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: input.count)
        input.withUnsafeBytes { source in output.withUnsafeMutableBytes { aes.ctr(source, into: $0, counter: counter) } }
        return output
    }

    /// Round trips at odd alignments and lengths, out of place and in place; a chunked CTR
    /// equals one call.
    @Test(arguments: implementations) func roundTripsOnUnalignedBuffers(_ implementation: AES256.Implementation) {
        var generator = SplitMix64(seed: UInt64(implementation == .hardware ? 2 : 1))
        let aes = AES256(key: generator.bytes(32), implementation: implementation)
        let iv = AESBlock(low: generator.next(), high: generator.next())
        let plaintext = generator.bytes(4096 + 64)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2 * 4096 + 256, alignment: 16)
        defer { buffer.deallocate() }
        for (offset, count) in [(1, 4096), (3, 4097), (7, 17), (13, 64), (5, 65), (9, 1), (0, 0)] {
            let source = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + count)])
            let middle = UnsafeMutableRawBufferPointer(rebasing: buffer[(4096 + 128 + offset)..<(4096 + 128 + offset + count)])
            plaintext.withUnsafeBytes { source.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            aes.ctr(UnsafeRawBufferPointer(source), into: middle, counter: iv)
            #expect(count < 16 || Array(middle) != Array(plaintext[0..<count]), "encrypted at offset \(offset)")
            aes.ctr(UnsafeRawBufferPointer(middle), into: middle, counter: iv)  // in place
            #expect(Self.same(middle, plaintext[0..<count]), "CTR at offset \(offset), \(count) bytes")

            let whole = count - count % 16
            let cbcSource = UnsafeMutableRawBufferPointer(rebasing: source[0..<whole])
            let cbcMiddle = UnsafeMutableRawBufferPointer(rebasing: middle[0..<whole])
            aes.cbcEncrypt(UnsafeRawBufferPointer(cbcSource), into: cbcMiddle, iv: iv)
            aes.cbcEncrypt(UnsafeRawBufferPointer(cbcSource), into: cbcSource, iv: iv)  // in place
            #expect(Self.same(cbcSource, cbcMiddle), "CBC in place at offset \(offset)")
            aes.cbcDecrypt(UnsafeRawBufferPointer(cbcMiddle), into: cbcMiddle, iv: iv)
            #expect(Self.same(cbcMiddle, plaintext[0..<whole]), "CBC at offset \(offset), \(whole) bytes")
        }

        // CTR in chunks of whole blocks, each starting at the next counter, equals one call.
        var once = [UInt8](repeating: 0, count: 4096)
        var chunked = once
        plaintext.withUnsafeBytes { raw in
            let input = UnsafeRawBufferPointer(rebasing: raw[0..<4096])
            once.withUnsafeMutableBytes { aes.ctr(input, into: $0, counter: AESBlock(bigEndianHigh: 1, low: .max - 100)) }
            chunked.withUnsafeMutableBytes { output in
                var start = 0
                for size in [16, 48, 64, 1024, 640, 2304] {  // the counter carries inside the fifth chunk
                    let counter = AESBlock(bigEndianHigh: 1 + (start / 16 > 100 ? 1 : 0), low: (UInt64.max - 100) &+ UInt64(start / 16))
                    aes.ctr(UnsafeRawBufferPointer(rebasing: input[start..<(start + size)]),
                            into: UnsafeMutableRawBufferPointer(rebasing: output[start..<(start + size)]), counter: counter)
                    start += size
                }
            }
        }
        #expect(Self.same(once, chunked))
    }

    // MARK: SHA-256 and HMAC-SHA-256

    /// FIPS 180-4 / NIST examples: the empty message, "abc", the 448-bit message, and a million
    /// "a"s (hashed in one call and in uneven pieces).
    @Test(arguments: shaImplementations) func sha256KnownAnswers(_ implementation: SHA256.Implementation) {
        func hash(_ bytes: [UInt8]) -> String { SHA256.hash(bytes, implementation: implementation).description }
        #expect(hash([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(hash(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = [UInt8](repeating: 0x61, count: 1_000_000)
        let expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"
        #expect(hash(million) == expected)
        var hasher = SHA256(implementation: implementation)
        million.withUnsafeBytes { raw in
            var start = 0
            for size in [1, 55, 8, 63, 64, 65, 127, 999_617] {
                hasher.update(UnsafeRawBufferPointer(rebasing: raw[start..<(start + size)]))
                start += size
            }
            #expect(start == million.count)
        }
        #expect(hasher.finalize().description == expected)
        // The same answers from the paired path (two interleaved streams on the hardware),
        // each message beside another of a different length.
        let messages: [(bytes: [UInt8], digest: String)] = [
            ([], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            (million, expected),
        ]
        for (first, second) in zip(messages, messages.dropFirst() + messages.prefix(1)) {
            var (a, b) = (SHA256(implementation: implementation), SHA256(implementation: implementation))
            first.bytes.withUnsafeBytes { x in second.bytes.withUnsafeBytes { y in SHA256.update(&a, with: x, &b, with: y) } }
            let (digestA, digestB) = SHA256.finalize(a, b)
            #expect(digestA.description == first.digest, "paired, \(first.bytes.count) bytes beside \(second.bytes.count)")
            #expect(digestB.description == second.digest, "paired, \(second.bytes.count) bytes beside \(first.bytes.count)")
        }
    }

    /// Padding edges: messages of 55, 56, 63, 64 and 119 bytes (one or two padding blocks).
    @Test(arguments: shaImplementations) func sha256PaddingBoundaries(_ implementation: SHA256.Implementation) {
        let expected = [
            55: "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318",
            56: "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a",
            63: "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34",
            64: "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb",
            119: "31eba51c313a5c08226adf18d4a359cfdfd8d2e816b13f4af952f7ea6584dcfb",
        ]
        for (count, digest) in expected {
            #expect(SHA256.hash([UInt8](repeating: 0x61, count: count), implementation: implementation).description == digest,
                    "\(count) bytes")
        }
    }

    /// RFC 4231 test cases 1–7 (case 5 truncated to 128 bits, as the RFC gives it).
    @Test(arguments: shaImplementations) func hmacSHA256RFC4231(_ implementation: SHA256.Implementation) {
        let longKey = [UInt8](repeating: 0xAA, count: 131)
        let cases: [(key: [UInt8], data: [UInt8], mac: String)] = [
            ([UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8),
             "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
             "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50),
             "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
            (Array(1...25), [UInt8](repeating: 0xCD, count: 50),
             "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
            ([UInt8](repeating: 0x0C, count: 20), Array("Test With Truncation".utf8),
             "a3b6167473100ee06e0c796c2955552b"),
            (longKey, Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
            (longKey, Array(("This is a test using a larger than block-size key and a larger than block-size data. "
                             + "The key needs to be hashed before being used by the HMAC algorithm.").utf8),
             "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
        ]
        for (index, testCase) in cases.enumerated() {
            let code = HMACSHA256(key: testCase.key, implementation: implementation).code(for: testCase.data).description
            #expect(code.hasPrefix(testCase.mac), "RFC 4231 test case \(index + 1)")
            #expect(code.count == 64)
            // The paired path: the message beside itself, split into head and body at two places.
            let split = testCase.data.count / 3
            testCase.data.withUnsafeBytes { data in
                let (a, b) = HMACSHA256(key: testCase.key, implementation: implementation).codes(
                    for: (UnsafeRawBufferPointer(rebasing: data[0..<8]), UnsafeRawBufferPointer(rebasing: data[8...])),
                    (UnsafeRawBufferPointer(rebasing: data[0..<split]), UnsafeRawBufferPointer(rebasing: data[split...])))
                #expect(a.description.hasPrefix(testCase.mac) && b.description.hasPrefix(testCase.mac), "RFC 4231 test case \(index + 1), paired")
            }
        }
    }

    /// Hardware and Swift compression agree: SHA-256 of random messages of every length up to
    /// 300 bytes and a few pages, in one call and in random pieces, and HMAC-SHA-256 under random
    /// keys of every length up to 140 bytes (shorter and longer than a block).
    @Test(.enabled(if: SHA256.Implementation.isHardwareAvailable, "needs an x86-64 CPU with SHA-NI or an arm64 one with SHA2"))
    func hardwareSHA256AgreesWithPortable() {
        var generator = SplitMix64(seed: 256)
        let message = generator.bytes(3 * 4096 + 100)
        message.withUnsafeBytes { raw in
            for count in Array(0...300) + [4096, 4096 + 55, 4096 + 64, 3 * 4096 + 100] {
                let part = UnsafeRawBufferPointer(rebasing: raw[0..<count])
                let expected = SHA256.hash(part, implementation: .portable)
                #expect(SHA256.hash(part, implementation: .hardware) == expected, "\(count) bytes")
                var hasher = SHA256(implementation: .hardware)
                var start = 0
                while start < count {
                    let size = min(count - start, Int(generator.next() % 150))
                    hasher.update(UnsafeRawBufferPointer(rebasing: part[start..<(start + size)]))
                    start += size
                }
                #expect(hasher.finalize() == expected, "\(count) bytes in pieces")
            }
            for keyLength in 0...140 {
                let key = generator.bytes(keyLength)
                let page = UnsafeRawBufferPointer(rebasing: raw[0..<(keyLength * 29)])
                #expect(HMACSHA256(key: key, implementation: .hardware).code(for: page)
                        == HMACSHA256(key: key, implementation: .portable).code(for: page), "\(keyLength)-byte key")
            }
        }
    }

    /// The paired path (`SHA256.update(_:with:_:with:)`, `SHA256.finalize(_:_:)`,
    /// `HMACSHA256.codes(for:_:)`; two interleaved streams on the hardware) gives exactly the
    /// digests of two separate computations: random messages of every length 0…300 and of page
    /// sizes, paired with messages of other lengths, after random already-buffered prefixes; on
    /// every implementation (the portable one takes the sequential fallback).
    @Test(arguments: shaImplementations) func pairedSHA256AgreesWithSingle(_ implementation: SHA256.Implementation) {
        var generator = SplitMix64(seed: implementation == .hardware ? 512 : 513)
        let message = generator.bytes(3 * 4096 + 200)
        let key = generator.bytes(32)
        let mac = HMACSHA256(key: key, implementation: implementation)
        let pageSizes = [4096 - 8, 4096, 4096 + 64, 2 * 4096 - 8, 3 * 4096 - 8]
        message.withUnsafeBytes { raw in
            func piece(_ start: Int, _ count: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: raw[start..<(start + count)]) }
            for countA in Array(0...300) + pageSizes {
                // A partner shorter, as long, or longer: the unpaired blocks of either side.
                let countB = [Int(generator.next() % 301), countA, pageSizes[Int(generator.next() % 5)]][Int(generator.next() % 3)]
                let (headA, headB) = (Int(generator.next() % 80), Int(generator.next() % 80))
                let (startA, startB) = (Int(generator.next() % 100), Int(generator.next() % 100))
                var (singleA, singleB) = (SHA256(implementation: implementation), SHA256(implementation: implementation))
                singleA.update(piece(startA, headA))
                singleA.update(piece(startA + headA, countA))
                singleB.update(piece(startB, headB))
                singleB.update(piece(startB + headB, countB))
                var (pairA, pairB) = (SHA256(implementation: implementation), SHA256(implementation: implementation))
                SHA256.update(&pairA, with: piece(startA, headA), &pairB, with: piece(startB, headB))
                SHA256.update(&pairA, with: piece(startA + headA, countA), &pairB, with: piece(startB + headB, countB))
                let (digestA, digestB) = SHA256.finalize(pairA, pairB)
                #expect(digestA == singleA.finalize(), "\(headA) + \(countA) bytes beside \(headB) + \(countB)")
                #expect(digestB == singleB.finalize(), "\(headB) + \(countB) bytes beside \(headA) + \(countA)")
                // Both messages the same memory: the two states must still stay apart.
                let (sameA, sameB) = SHA256.finalize(pairA, pairA)
                #expect(sameA == digestA && sameB == digestA)
                let (codeA, codeB) = mac.codes(for: (piece(startA, 8), piece(startA + 8, countA)), (piece(startB, headB), piece(startB + headB, countB)))
                #expect(codeA == mac.code(for: piece(startA, 8 + countA)), "HMAC of 8 + \(countA) bytes")
                #expect(codeB == mac.code(for: piece(startB, headB + countB)), "HMAC of \(headB) + \(countB) bytes")
            }
        }
    }

    /// The stored form of a page, recomputed here from the format alone (FORMAT.md, "Encrypted
    /// files"; `PageCipher`'s table), with the portable AES and SHA-256: the tag `T` is the first 8
    /// bytes of HMAC-SHA-256(macKey, LE64(page) ‖ opened bytes 8..<length) — the plaintext, with a
    /// meta page's last 64 bytes replaced by the clear encryption header — bytes 8..<16 the
    /// transaction in the clear, the rest AES-256-CTR from the counter block
    /// `E(ivKey, E(ivKey, T ‖ t) ⊕ (page ‖ 0))`. `encrypt` of one page and of a pair (two
    /// interleaved HMACs) must both write exactly that, and `decrypt` must give the plaintext back.
    @Test func pageCipherFollowsTheFormat() throws {
        var generator = SplitMix64(seed: 4231)
        let userKey = generator.bytes(64)
        let salt = generator.bytes(32)
        let cipher = try #require(PageCipher(userKey: userKey, salt: salt))
        func derive(_ half: ArraySlice<UInt8>, _ label: String) -> [UInt8] {
            HMACSHA256(key: Array(half), implementation: .portable).code(for: Array(label.utf8) + salt).bytes
        }
        let aes = AES256(key: derive(userKey[0..<32], "RealmActors AES"), implementation: .portable)
        let iv = AES256(key: derive(userKey[0..<32], "RealmActors IV"), implementation: .portable)
        let mac = HMACSHA256(key: derive(userKey[32..<64], "RealmActors MAC"), implementation: .portable)
        let pageSize = PageLayout.pageSize
        // Scheme 2's clear header: magic "RLMAENC\0", scheme 2, zero, salt, key check (both keys).
        let keyCheck = mac.code(for: Array("RealmActors key check".utf8) + aes.encrypt(AESBlock(low: 0, high: 0)).bytes).bytes.prefix(16)
        let encryptionHeader = Array("RLMAENC".utf8) + [0, 2, 0, 0, 0, 0, 0, 0, 0] + salt + keyCheck
        #expect(cipher.header.keyCheck == Array(keyCheck))

        func expected(_ plain: [UInt8], page: UInt64) -> [UInt8] {
            let end = page < 2 ? pageSize - 64 : plain.count
            var opened = plain
            if page < 2 { opened[end...] = ArraySlice(encryptionHeader) }
            let tagBytes = Array(mac.code(for: withUnsafeBytes(of: page.littleEndian, Array.init) + opened[8...]).bytes.prefix(8))
            let tag = tagBytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            let transaction = plain.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }
            let first = iv.encrypt(AESBlock(tagBytes + withUnsafeBytes(of: transaction.littleEndian, Array.init)))
            let counter = iv.encrypt(AESBlock(low: first.low ^ page, high: first.high))
            #expect(AESBlock(low: tag, high: transaction).bytes == tagBytes + withUnsafeBytes(of: transaction.littleEndian, Array.init))
            var stored = opened
            stored[0..<8] = ArraySlice(tagBytes)
            plain.withUnsafeBytes { source in
                stored.withUnsafeMutableBytes { target in
                    aes.ctr(UnsafeRawBufferPointer(rebasing: source[16..<end]), into: UnsafeMutableRawBufferPointer(rebasing: target[16..<end]),
                            counter: counter)
                }
            }
            return stored
        }

        // Meta pages, single pages, runs; each in turn paired with the next.
        let cases: [(pages: Int, number: UInt64)] = [(1, 0), (1, 1), (1, 2), (1, 7), (3, 8), (1, 11), (2, 300), (1, 0x1_0000_0001)]
        let plains = cases.map { pages, number in
            var plain = generator.bytes(pages * pageSize)
            plain[8..<16] = ArraySlice(withUnsafeBytes(of: (generator.next() % 1_000_000).littleEndian, Array.init))
            if number < 2 { plain[(pageSize - 64)...] = ArraySlice(repeating: 0, count: 64) }  // a meta page's tail is zero
            return plain
        }
        let wanted = zip(plains, cases).map { expected($0, page: $1.number) }
        for (index, (plain, (_, number))) in zip(plains, cases).enumerated() {
            var stored = [UInt8](repeating: 0, count: plain.count)
            plain.withUnsafeBytes { source in
                stored.withUnsafeMutableBytes { cipher.encrypt(source.baseAddress!, length: plain.count, page: number, into: $0.baseAddress!) }
            }
            #expect(Self.same(stored, wanted[index]), "page \(number), \(plain.count) bytes")
            var decrypted = [UInt8](repeating: 0, count: plain.count)
            let authentic = stored.withUnsafeBytes { s in
                decrypted.withUnsafeMutableBytes { cipher.decrypt(s.baseAddress!, length: plain.count, page: number, into: $0.baseAddress!) }
            }
            var sealed = plain
            sealed.withUnsafeMutableBytes { PageChecksum.seal($0.baseAddress!, length: plain.count) }
            #expect(authentic && decrypted == sealed, "page \(number) decrypts to its plaintext")
            let partner = (index + 1) % cases.count
            var storedPartner = [UInt8](repeating: 0, count: plains[partner].count)
            stored = [UInt8](repeating: 0, count: plain.count)
            plain.withUnsafeBytes { source in
                plains[partner].withUnsafeBytes { partnerSource in
                    stored.withUnsafeMutableBytes { target in
                        storedPartner.withUnsafeMutableBytes { partnerTarget in
                            cipher.encrypt(source.baseAddress!, length: source.count, page: number, into: target.baseAddress!,
                                           partnerSource.baseAddress!, length: partnerSource.count, page: cases[partner].number,
                                           into: partnerTarget.baseAddress!)
                        }
                    }
                }
            }
            #expect(Self.same(stored, wanted[index]), "page \(number) encrypted in a pair")
            #expect(Self.same(storedPartner, wanted[partner]), "page \(cases[partner].number) encrypted in a pair")
        }
    }

    /// A fixed vector of the scheme (all-zero key and salt, page 5, transaction 7, content
    /// 0x00, 0x01, … ): the first stored bytes, as this implementation computed them when the
    /// scheme was fixed. Catches any change to the stored form that the test above, which
    /// restates the scheme, would change in step.
    @Test(arguments: [AES256.Implementation.portable, .best])
    func pageCipherKnownAnswer(implementation: AES256.Implementation) throws {
        let cipher = try #require(PageCipher(userKey: [UInt8](repeating: 0, count: 64), salt: [UInt8](repeating: 0, count: 32), implementation: implementation))
        var plain = (0..<PageLayout.pageSize).map { UInt8(truncatingIfNeeded: $0) }
        plain.withUnsafeMutableBytes { $0.baseAddress!.setU64(8, 7) }
        var stored = [UInt8](repeating: 0, count: plain.count)
        plain.withUnsafeBytes { p in stored.withUnsafeMutableBytes { cipher.encrypt(p.baseAddress!, length: p.count, page: 5, into: $0.baseAddress!) } }
        let hex = stored.prefix(32).map { String(format: "%02x", $0) }.joined()
        #expect(hex == Self.knownAnswer, "stored form changed: \(hex)")
    }
    static let knownAnswer = "6d0f6ce54658dd740700000000000000f9b33bc87e7675df942516b676784774"

    /// A MAC is accepted only byte for byte: every single-byte change, a shorter code and a
    /// different message are rejected.
    @Test func macComparison() {
        let mac = HMACSHA256(key: Array(0..<32))
        let message = [UInt8](repeating: 7, count: 4096)
        let code = mac.code(for: message).bytes
        message.withUnsafeBytes { messageBytes in
            code.withUnsafeBytes { #expect(mac.isValid($0, for: messageBytes)) }
            for index in 0..<code.count {
                var forged = code
                forged[index] ^= 0x01
                forged.withUnsafeBytes { #expect(!mac.isValid($0, for: messageBytes), "byte \(index) changed") }
            }
            code.dropLast().withUnsafeBytes { #expect(!mac.isValid($0, for: messageBytes), "truncated") }
        }
        var other = message
        other[4095] = 8
        other.withUnsafeBytes { otherBytes in code.withUnsafeBytes { #expect(!mac.isValid($0, for: otherBytes)) } }
        #expect(mac.code(for: message) == mac.code(for: message))
        #expect(mac.code(for: message) != mac.code(for: other))
        #expect(ConstantTime.equals(UnsafeRawBufferPointer(start: nil, count: 0), UnsafeRawBufferPointer(start: nil, count: 0)))
    }

    // MARK: Keys

    /// Decryption restores the page, checksum included (the stored form itself is checked by
    /// `pageCipherFollowsTheFormat`); a page moved to another number, a flipped bit or another
    /// salt fails, and the key check tells the keys apart. Keys of another length than 64 bytes
    /// are refused.
    @Test func pageCipherDecryptsOnlyAuthenticPages() throws {
        let userKey = Array(UInt8(0)..<64)
        let salt = Array(UInt8(100)..<132)
        let cipher = try #require(PageCipher(userKey: userKey, salt: salt, implementation: .portable))
        var random = SplitMix64(seed: 99)
        var plain = random.bytes(2 * PageLayout.pageSize)
        let length = plain.count
        plain.withUnsafeMutableBytes { page in
            page.baseAddress!.initializePageHeader(kind: .overflow, transaction: 77)
            page.baseAddress!.setU32(PageLayout.auxOffset, 2)
            PageChecksum.seal(page.baseAddress!, length: length)
        }
        var stored = [UInt8](repeating: 0, count: length)
        plain.withUnsafeBytes { p in stored.withUnsafeMutableBytes { cipher.encrypt(p.baseAddress!, length: length, page: 9, into: $0.baseAddress!) } }

        func decrypt(_ bytes: [UInt8], page: PageNumber, with cipher: PageCipher) -> [UInt8]? {
            var out = [UInt8](repeating: 0xEE, count: length)
            let ok = bytes.withUnsafeBytes { s in out.withUnsafeMutableBytes { cipher.decrypt(s.baseAddress!, length: length, page: page, into: $0.baseAddress!) } }
            return ok ? out : nil
        }
        #expect(decrypt(stored, page: 9, with: cipher) == plain)
        #expect(decrypt(stored, page: 10, with: cipher) == nil, "a page moved to another number")
        var flipped = stored
        flipped[3_000] ^= 1
        #expect(decrypt(flipped, page: 9, with: cipher) == nil)
        let otherSalt = try #require(PageCipher(userKey: userKey, salt: Array(UInt8(1)...32), implementation: .portable))
        #expect(decrypt(stored, page: 9, with: otherSalt) == nil)
        #expect(!otherSalt.isKeyCorrect(for: cipher.header) && cipher.isKeyCorrect(for: cipher.header))
        for count in [0, 32, 63, 65, 128] {
            #expect(PageCipher(userKey: [UInt8](repeating: 1, count: count), salt: salt) == nil, "\(count) bytes")
        }
    }
}

