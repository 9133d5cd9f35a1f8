// The page-encryption primitives of issue 18 (`Sources/RealmStorage/Crypto`), on 4 KiB pages:
//
//   swift run -c release realm-engine-bench --crypto
//
// AES and SHA-256 run both ways: on the CPU's instructions (`HardwareAES`, `SHA256`'s C
// compression, in every x86-64 and arm64 build, measured where the CPU has them) and portable. MB/s are 10^6 bytes per second of page
// data, the median of five runs.
import RealmStorage

func runCryptoBenchmarks(quick: Bool) {
    let pageSize = 4096
    let page = UnsafeMutableRawBufferPointer.allocate(byteCount: pageSize, alignment: 16)
    let output = UnsafeMutableRawBufferPointer.allocate(byteCount: pageSize, alignment: 16)
    defer {
        page.deallocate()
        output.deallocate()
    }
    for index in 0..<pageSize { page[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
    let key = (0..<64).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
    var sink: UInt64 = 0  // folded into by every loop and printed, so no loop is dropped

    /// `body` handles `perCall` pages; it runs `pages / perCall` times.
    func throughput(_ name: String, pages: Int, perCall: Int = 1, _ body: () -> Void) {
        var samples: [Duration] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for _ in 0..<(pages / perCall) { body() }
            samples.append(ContinuousClock.now - start)
        }
        let median = samples.sorted()[2]
        let seconds = Double(median.components.seconds) + Double(median.components.attoseconds) / 1e18
        let megabytes = Double(pages * pageSize) / 1e6
        let label = name.padding(toLength: 44, withPad: " ", startingAt: 0)
        let rate = String(Int((megabytes / seconds).rounded()))
        let perPage = String(Int((seconds / Double(pages) * 1e9).rounded()))
        print("\(label) \(String(repeating: " ", count: max(0, 8 - rate.count)))\(rate) MB/s  \(perPage) ns/page")
    }

    print("crypto, 4 KiB pages: CPU has AES instructions \(CPUFeatures.hasAES), hardware AES compiled in \(AES256.Implementation.isHardwareCompiled)")
    var implementations: [AES256.Implementation] = [.portable]
    if AES256.Implementation.isHardwareAvailable { implementations.insert(.hardware, at: 0) }
    for implementation in implementations {
        let aes = AES256(key: Array(key[0..<32]), implementation: implementation)
        let pages = implementation == .hardware ? (quick ? 2_000 : 20_000) : (quick ? 20 : 200)
        var counter: UInt64 = 0
        throughput("AES-256-CTR \(implementation)", pages: pages) {
            counter &+= 256
            aes.ctr(UnsafeRawBufferPointer(page), into: output, counter: AESBlock(bigEndianHigh: 1, low: counter))
            sink &+= output.load(as: UInt64.self)
        }
        throughput("AES-256-CBC encrypt \(implementation)", pages: pages) {
            aes.cbcEncrypt(UnsafeRawBufferPointer(page), into: output, iv: AESBlock(low: sink, high: 0))
            sink &+= output.load(as: UInt64.self)
        }
        throughput("AES-256-CBC decrypt \(implementation)", pages: pages) {
            aes.cbcDecrypt(UnsafeRawBufferPointer(page), into: output, iv: AESBlock(low: sink, high: 0))
            sink &+= output.load(as: UInt64.self)
        }
    }
    print("CPU has SHA-256 instructions \(CPUFeatures.hasSHA256)")
    var shaImplementations: [SHA256.Implementation] = [.portable]
    if SHA256.Implementation.isHardwareAvailable { shaImplementations.insert(.hardware, at: 0) }
    for implementation in shaImplementations {
        let mac = HMACSHA256(key: Array(key[32..<64]), implementation: implementation)
        let pages = implementation == .hardware ? (quick ? 20_000 : 200_000) : (quick ? 2_000 : 20_000)
        throughput("HMAC-SHA-256 \(implementation)", pages: pages) {
            page[0] = UInt8(truncatingIfNeeded: sink)
            sink &+= mac.code(for: UnsafeRawBufferPointer(page)).withUnsafeBytes { $0.load(as: UInt64.self) }
        }
        // Two pages' HMACs side by side, as an encrypted commit tags its pages (the page
        // number, then the page): on the hardware, two interleaved SHA-256 streams.
        let second = UnsafeMutableRawBufferPointer.allocate(byteCount: pageSize, alignment: 16)
        defer { second.deallocate() }
        second.copyMemory(from: UnsafeRawBufferPointer(page))
        var number: UInt64 = 0
        throughput("HMAC-SHA-256 2-way \(implementation)", pages: pages, perCall: 2) {
            page[8] = UInt8(truncatingIfNeeded: sink)
            number &+= 2
            let (a, b) = withUnsafeBytes(of: number) { first in
                withUnsafeBytes(of: number + 1) { other in
                    mac.codes(for: (first, UnsafeRawBufferPointer(rebasing: page[8...])),
                              (other, UnsafeRawBufferPointer(rebasing: second[8...])))
                }
            }
            sink &+= a.withUnsafeBytes { $0.load(as: UInt64.self) } &+ b.withUnsafeBytes { $0.load(as: UInt64.self) }
        }
        throughput("HMAC-SHA-256 1-way, page tag \(implementation)", pages: pages) {
            page[8] = UInt8(truncatingIfNeeded: sink)
            number &+= 1
            var hasher = mac.hasher()
            withUnsafeBytes(of: number) { hasher.update($0) }
            hasher.update(UnsafeRawBufferPointer(rebasing: page[8...]))
            sink &+= mac.finalize(hasher).withUnsafeBytes { $0.load(as: UInt64.self) }
        }
        throughput("SHA-256 \(implementation)", pages: pages) {
            page[0] = UInt8(truncatingIfNeeded: sink)
            sink &+= SHA256.hash(UnsafeRawBufferPointer(page), implementation: implementation)
                .withUnsafeBytes { $0.load(as: UInt64.self) }
        }
    }
    // A whole page through `PageCipher`, as a commit writes it and a first read opens it: the
    // tag, the counter block and the key stream (scheme 2: the tag is over the plaintext and
    // the counter derived from it; decryption runs into scratch memory and then authenticates).
    let cipher = PageCipher(userKey: key, salt: (0..<32).map { UInt8($0) })!
    let plain = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: pageSize)
    let stored = UnsafeMutableRawPointer.allocate(byteCount: pageSize, alignment: pageSize)
    defer {
        plain.deallocate()
        stored.deallocate()
    }
    plain.copyMemory(from: page.baseAddress!, byteCount: pageSize)
    plain.storeBytes(of: 7 as UInt64, toByteOffset: 8, as: UInt64.self)
    let cipherPages = quick ? 2_000 : 20_000
    var pageNumber: UInt64 = 2
    throughput("PageCipher encrypt", pages: cipherPages) {
        pageNumber &+= 1
        plain.storeBytes(of: sink, toByteOffset: 100, as: UInt64.self)
        cipher.encrypt(plain, length: pageSize, page: pageNumber, into: stored)
        sink &+= stored.load(as: UInt64.self)
    }
    cipher.encrypt(plain, length: pageSize, page: 5, into: stored)
    throughput("PageCipher decrypt", pages: cipherPages) {
        sink &+= cipher.decrypt(stored, length: pageSize, page: 5, into: output.baseAddress!) ? 1 : 0
    }
    print("(checksum \(sink & 0xFFFF))")
}
