/// The transform between a page as the storage layer sees it (plaintext, sealed with its
/// checksum) and as an encrypted file stores it. One per open encrypted file.
///
/// # The encrypted page (scheme 2)
///
/// A page or run (a wide table leaf, an overflow run) of `L` bytes at page `n`, written by
/// transaction `t`, is stored as:
///
/// | bytes | plaintext page | encrypted page |
/// |---|---|---|
/// | 0..<8 | checksum | tag `T`: the first 8 bytes of HMAC-SHA-256(`macKey`, LE64(`n`) ‖ *opened* bytes 8..<L) |
/// | 8..<16 | transaction `t` | `t`, in the clear |
/// | 16..<L | header rest, content | AES-256-CTR(`aesKey`, counter block `IV(T, t, n)`) |
///
/// The *opened* page is the plaintext with, in a meta page (0 and 1), its last 64 bytes replaced
/// by the file's ``EncryptionHeader``, which meta pages store in the clear (authenticated by the
/// tag, not encrypted). `IV(T, t, n) = E(ivKey, E(ivKey, T ‖ t) ⊕ (n ‖ 0))`, 16 bytes, each
/// part little-endian: a CBC-MAC of two fixed-length blocks, a pseudo-random function of
/// `(T, t, n)`.
///
/// ## Why it is safe
///
/// - *No counter repeats for different plaintexts, whatever is done to the file.* CTR is broken
///   by one counter value used for two plaintexts under one key. Scheme 1 used `(t, n)` as the
///   counter, unique within a file — but a file copied byte for byte (a backup restored, a VM
///   snapshot, a container image, a seed file) carries its salt and so its keys, and both copies
///   go on stamping the same `(t, n)` on different plaintexts: the XOR of the two files showed
///   the XOR of the data written after the copy. Here the counter is derived from the tag, which
///   is a PRF of the whole opened page (this is SIV, Rogaway and Shrimpton's misuse-resistant
///   mode): two writes share a counter block only if they wrote the same page with the same
///   transaction *and* the same bytes — which reveals only that they are equal — or by a
///   collision of the 64-bit tag for the same `(t, n)`, probability 2^-64 per such pair, and
///   such pairs arise only across copies. Different `(T, t, n)` give independent 128-bit
///   counter blocks; two ranges of at most 2^20 blocks overlap with probability below 2^-107.
///   Nothing depends on state a copy could duplicate: no nonce to persist, no per-open epoch.
/// - *Authenticated.* The tag covers the page number, the transaction and every plaintext byte
///   (and a meta page's clear header), and is compared in constant time after decryption into
///   scratch memory, before a byte reaches a reader. A page moved to another number, a flipped
///   bit or a wrong key fail it. An *old authentic image* of the same page (a stale page, a
///   replayed log record) passes it — the tag cannot know which transaction a page should
///   carry; its parent can: every read checks the page's transaction against the one its
///   parent recorded (`PageSource`), from the meta page down, which makes a version a hash tree
///   rooted in its meta page. The tag is HMAC-SHA-256 truncated to 64 bits, the room the page
///   header has: a forgery succeeds with probability 2^-64 per attempt, and each attempt is an
///   open of a modified file.
/// - *Keys.* From the salt and the user key's halves, as Realm splits it (HMAC as a PRF, the
///   HKDF-Expand step): `aesKey = HMAC(userKey[0..<32], "RealmActors AES" ‖ salt)`, `ivKey =
///   HMAC(userKey[0..<32], "RealmActors IV" ‖ salt)`, `macKey = HMAC(userKey[32..<64],
///   "RealmActors MAC" ‖ salt)`. ``EncryptionHeader/keyCheck`` = HMAC(`macKey`, "RealmActors key
///   check" ‖ AES(`aesKey`, 0^16)), first 16 bytes: it depends on both halves, so a key right in
///   one half only is told apart from a damaged file as a wrong key. The derived keys live in
///   this object only (round keys and HMAC states, zeroed when it is freed); the byte arrays
///   they were derived through are zeroed at once.
/// - *What stays visible.* Transaction ids, page positions and run lengths, the meta pages'
///   encryption header, and whether two copies of a file wrote byte-identical pages; nothing the
///   application wrote.
///
/// The plaintext checksum is not stored: decryption recomputes it, so the decrypted page is byte
/// for byte the page an unencrypted file would hold, and every check above this layer (recovery,
/// the integrity check) works unchanged.
package final class PageCipher: Sendable {
    /// The user key's length in bytes (`Realm.Configuration.encryptionKey`): 512 random bits, as
    /// Realm asks for; a password needs a slow key-derivation function first, which is the
    /// application's business, as in Realm.
    package static let userKeyByteCount = 64
    /// Where meta pages keep the encryption header (their last 64 bytes).
    package static let metaHeaderOffset = PageLayout.pageSize - EncryptionHeader.byteCount
    /// Bytes of the tag kept in the page header.
    static let tagByteCount = 8

    package let header: EncryptionHeader
    private let aes: AES256
    private let iv: AES256
    private let mac: KeyedMAC

    /// The cipher of a file with `header` (its salt) under `userKey` (64 bytes), or nil when the
    /// key is not 64 bytes. Does not check the key against the header: see ``isKeyCorrect``.
    package init?(userKey: [UInt8], salt: [UInt8], implementation: AES256.Implementation = .best) {
        guard userKey.count == Self.userKeyByteCount, salt.count == EncryptionHeader.saltByteCount else { return nil }
        func derive(_ key: ArraySlice<UInt8>, _ label: String) -> [UInt8] {
            var keyBytes = Array(key)
            defer { keyBytes.wipe() }
            var digest = HMACSHA256(key: keyBytes).code(for: Array(label.utf8) + salt)
            defer { digest.wipe() }
            return digest.bytes
        }
        var aesKey = derive(userKey[0..<32], "RealmActors AES")
        var ivKey = derive(userKey[0..<32], "RealmActors IV")
        var macKey = derive(userKey[32..<64], "RealmActors MAC")
        defer { aesKey.wipe(); ivKey.wipe(); macKey.wipe() }
        aes = AES256(key: aesKey, implementation: implementation)
        iv = AES256(key: ivKey, implementation: implementation)
        mac = KeyedMAC(key: macKey)
        let encryptedZero = aes.encrypt(AESBlock(low: 0, high: 0))
        let check = mac.code.code(for: Array("RealmActors key check".utf8) + encryptedZero.bytes)
        header = EncryptionHeader(salt: salt, keyCheck: Array(check.bytes.prefix(16)))
    }

    /// A cipher for a new file: a fresh random salt.
    package convenience init?(newFileWithKey userKey: [UInt8]) {
        var generator = SystemRandomNumberGenerator()  // getrandom(2) / arc4random: a CSPRNG
        self.init(userKey: userKey, salt: (0..<EncryptionHeader.saltByteCount).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Whether `stored` (read from the file) was written under this cipher's user key.
    package func isKeyCorrect(for stored: EncryptionHeader) -> Bool {
        stored.keyCheck.withUnsafeBytes { a in header.keyCheck.withUnsafeBytes { b in ConstantTime.equals(a, b) } }
    }

    /// The first counter block of the page or run at `number` with `tag` and `transaction`:
    /// `IV(T, t, n)` of the type's table.
    @inline(__always)
    private func counter(tag: UInt64, transaction: TransactionID, page number: PageNumber) -> AESBlock {
        let first = iv.encrypt(AESBlock(low: tag, high: transaction))
        return iv.encrypt(first ^ AESBlock(low: number, high: 0))
    }

    /// Where the encrypted part of a page or run of `length` bytes at `number` ends: a meta
    /// page's clear header follows it.
    @inline(__always)
    private static func encryptedEnd(page number: PageNumber, length: Int) -> Int {
        number < PageLayout.firstDataPage ? metaHeaderOffset : length
    }

    /// The tag of the opened page `opened` (see the type's table): for a meta page, bytes
    /// 8..<`metaHeaderOffset` of `opened` then `clearTail` (the encryption header as stored).
    private func tag(_ opened: UnsafeRawPointer, length: Int, page number: PageNumber, clearTail: UnsafeRawPointer? = nil) -> UInt64 {
        var hasher = mac.code.hasher()
        withUnsafeBytes(of: number.littleEndian) { hasher.update($0) }
        let end = Self.encryptedEnd(page: number, length: length)
        hasher.update(UnsafeRawBufferPointer(start: opened + 8, count: end - 8))
        if end < length {
            hasher.update(UnsafeRawBufferPointer(start: clearTail ?? opened + end, count: length - end))
        }
        return mac.code.finalize(hasher).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    /// Encrypts the plaintext `plain` (`length` bytes, a whole number of pages, its checksum
    /// ignored) whose tag is `tag`, into `stored`.
    private func encrypt(_ plain: UnsafeRawPointer, length: Int, page number: PageNumber, tag: UInt64, into stored: UnsafeMutableRawPointer) {
        let transaction = plain.pageTransaction
        stored.storeBytes(of: tag, as: UInt64.self)
        stored.setU64(PageLayout.transactionOffset, transaction)
        let end = Self.encryptedEnd(page: number, length: length)
        aes.ctr(UnsafeRawBufferPointer(start: plain + 16, count: end - 16),
                into: UnsafeMutableRawBufferPointer(start: stored + 16, count: end - 16),
                counter: counter(tag: tag, transaction: transaction, page: number))
        if end < length {
            header.encode(into: stored + end)
        }
    }

    /// Writes the stored form of the plaintext page or run `plain` (`length` bytes, a whole
    /// number of pages) at page `number` into `stored` (as long; not overlapping).
    package func encrypt(_ plain: UnsafeRawPointer, length: Int, page number: PageNumber, into stored: UnsafeMutableRawPointer) {
        let code = number < PageLayout.firstDataPage
            ? header.withEncoded { tag(plain, length: length, page: number, clearTail: $0) }
            : tag(plain, length: length, page: number)
        encrypt(plain, length: length, page: number, tag: code, into: stored)
    }

    /// `encrypt` of two pages or runs, their tags computed side by side
    /// (``HMACSHA256/codes(for:_:)``: two HMACs at once, faster than one after the other on
    /// the CPU's SHA instructions). Exactly two calls of ``encrypt(_:length:page:into:)``.
    package func encrypt(_ first: UnsafeRawPointer, length firstLength: Int, page firstNumber: PageNumber, into firstStored: UnsafeMutableRawPointer,
                         _ second: UnsafeRawPointer, length secondLength: Int, page secondNumber: PageNumber, into secondStored: UnsafeMutableRawPointer) {
        guard firstNumber >= PageLayout.firstDataPage, secondNumber >= PageLayout.firstDataPage else {
            encrypt(first, length: firstLength, page: firstNumber, into: firstStored)
            encrypt(second, length: secondLength, page: secondNumber, into: secondStored)
            return
        }
        let (a, b) = withUnsafeBytes(of: firstNumber.littleEndian) { firstHead in
            withUnsafeBytes(of: secondNumber.littleEndian) { secondHead in
                let (a, b) = mac.code.codes(for: (firstHead, UnsafeRawBufferPointer(start: first + 8, count: firstLength - 8)),
                                            (secondHead, UnsafeRawBufferPointer(start: second + 8, count: secondLength - 8)))
                return (a.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }, b.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
            }
        }
        encrypt(first, length: firstLength, page: firstNumber, tag: a, into: firstStored)
        encrypt(second, length: secondLength, page: secondNumber, tag: b, into: secondStored)
    }

    /// Decrypts the first 8 bytes of the page header after the transaction (kind, flags, count,
    /// aux) of the stored page at `number` into `header` (24 bytes; bytes 16..<24 are written),
    /// without authenticating them: enough to learn a run's length before reading the rest.
    package func peekHeader(_ stored: UnsafeRawPointer, page number: PageNumber, into header: UnsafeMutableRawPointer) {
        aes.ctr(UnsafeRawBufferPointer(start: stored + 16, count: 8), into: UnsafeMutableRawBufferPointer(start: header + 16, count: 8),
                counter: counter(tag: stored.loadUnaligned(as: UInt64.self), transaction: stored.pageTransaction, page: number))
    }

    /// Decrypts the stored page or run `page` (`length` bytes at `number`) in place and checks
    /// its tag. If it is authentic, `page` then holds the plaintext (checksum recomputed, a meta
    /// page's clear tail zeroed) and the result is true; otherwise false, and `page` holds
    /// bytes no reader may see.
    package func open(_ page: UnsafeMutableRawPointer, length: Int, page number: PageNumber) -> Bool {
        let stored = page.loadUnaligned(as: UInt64.self)
        let end = Self.encryptedEnd(page: number, length: length)
        aes.ctr(UnsafeRawBufferPointer(start: page + 16, count: end - 16),
                into: UnsafeMutableRawBufferPointer(start: page + 16, count: end - 16),
                counter: counter(tag: stored, transaction: UnsafeRawPointer(page).pageTransaction, page: number))
        // The page is now in its opened form (a meta page's clear header still in its tail).
        let expected = tag(UnsafeRawPointer(page), length: length, page: number)
        let authentic = withUnsafeBytes(of: expected) { a in withUnsafeBytes(of: stored) { b in ConstantTime.equals(a, b) } }
        guard authentic else { return false }
        if end < length {
            (page + end).initializeMemory(as: UInt8.self, repeating: 0, count: length - end)
        }
        PageChecksum.seal(page, length: length)
        return true
    }

    /// Authenticates the stored page or run `stored` of `length` bytes at `number` and, if it is
    /// authentic, writes its plaintext (checksum recomputed) into `plain` (as long, not
    /// overlapping). Returns false if the tag does not match; `plain` then holds zeros.
    package func decrypt(_ stored: UnsafeRawPointer, length: Int, page number: PageNumber, into plain: UnsafeMutableRawPointer) -> Bool {
        plain.copyMemory(from: stored, byteCount: length)
        guard open(plain, length: length, page: number) else {
            plain.initializeMemory(as: UInt8.self, repeating: 0, count: length)
            return false
        }
        return true
    }

    /// Whether the stored page or run `stored` of `length` bytes carries the tag of page
    /// `number` under this file's keys (it is decrypted into scratch memory to tell).
    package func isAuthentic(_ stored: UnsafeRawPointer, length: Int, page number: PageNumber) -> Bool {
        let scratch = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: PageLayout.pageSize)
        defer {
            scratch.initializeMemory(as: UInt8.self, repeating: 0, count: length)
            scratch.deallocate()
        }
        return decrypt(stored, length: length, page: number, into: scratch)
    }

    /// A keyed MAC of `message` under this file's MAC key with a domain `label` (so it can never
    /// equal a page tag): the first 8 bytes of HMAC-SHA-256(`macKey`, `label` ‖ `message`).
    /// Authenticates the write-ahead log's headers in an encrypted file.
    package func authenticationCode(label: StaticString, for message: UnsafeRawBufferPointer) -> UInt64 {
        var hasher = mac.code.hasher()
        hasher.update(UnsafeRawBufferPointer(start: label.utf8Start, count: label.utf8CodeUnitCount))
        hasher.update(message)
        return mac.code.finalize(hasher).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }
}

/// The MAC key's HMAC states, zeroed when the cipher is freed. A class so that the one copy the
/// cipher holds is the one wiped (a struct stored in a `let` could not be).
///
/// Thread safety (`@unchecked Sendable`): `code` is written in `init` and in `deinit` only, when
/// no other reference exists; every other access reads it (and copies the states it hashes with).
private final class KeyedMAC: @unchecked Sendable {
    private(set) var code: HMACSHA256

    init(key: [UInt8]) { code = HMACSHA256(key: key) }

    deinit {
        // HMACSHA256 holds two hash states of plain integers (a trivial type), so zeroing its
        // bytes leaves nothing to release; it is not used again.
        assert(_isPOD(HMACSHA256.self), "HMACSHA256 must stay a trivial type to be wiped")
        withUnsafeMutableBytes(of: &code) { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}

extension Array where Element == UInt8 {
    /// Overwrites the bytes with zeros: for key material, once it is no longer needed.
    mutating func wipe() {
        withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    }
}

/// What the meta pages of an encrypted file say in the clear, in their last 64 bytes: that the
/// file is encrypted (so opening it without a key says so), the salt its keys are derived from,
/// and a check value that tells a wrong key from a damaged file.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `"RLMAENC\0"` |
/// | 8 | 4 | scheme: 2 (AES-256-CTR with synthetic counters, HMAC-SHA-256 truncated to 64 bits, per-file keys) |
/// | 12 | 4 | zero |
/// | 16 | 32 | salt |
/// | 48 | 16 | key check: HMAC-SHA-256(`macKey`, "RealmActors key check" ‖ AES(`aesKey`, 0^16)), first 16 bytes |
package struct EncryptionHeader: Equatable, Sendable {
    package static let byteCount = 64
    static let saltByteCount = 32
    static let magic: UInt64 = 0x00_434E_4541_4D4C_52  // "RLMAENC\0" little-endian
    static let scheme: UInt32 = 2
    /// The scheme development builds wrote before scheme 2: counters of `(transaction, page)`,
    /// which byte-for-byte copies of a file reuse. Refused, never written.
    static let unsafeDevelopmentScheme: UInt32 = 1

    package var salt: [UInt8]
    package var keyCheck: [UInt8]

    /// Calls `body` with the header's 64 stored bytes.
    func withEncoded<Result>(_ body: (UnsafeRawPointer) -> Result) -> Result {
        var bytes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            encode(into: raw.baseAddress!)
            return body(UnsafeRawPointer(raw.baseAddress!))
        }
    }

    func encode(into target: UnsafeMutableRawPointer) {
        target.initializeMemory(as: UInt8.self, repeating: 0, count: Self.byteCount)
        target.setU64(0, Self.magic)
        target.setU32(8, Self.scheme)
        salt.withUnsafeBytes { (target + 16).copyMemory(from: $0.baseAddress!, byteCount: Self.saltByteCount) }
        keyCheck.withUnsafeBytes { (target + 48).copyMemory(from: $0.baseAddress!, byteCount: 16) }
    }

    /// What the stored meta page `page` says, if it is a meta page of an encrypted file.
    package enum Reading: Equatable {
        /// No encryption header: a plaintext file (or not a realm file).
        case none
        /// An encryption scheme this library does not know (a newer one).
        case unknownScheme(UInt32)
        case header(EncryptionHeader)
    }

    package static func read(metaPage page: UnsafeRawPointer) -> Reading {
        let base = page + PageCipher.metaHeaderOffset
        guard base.u64(0) == magic else { return .none }
        guard base.u32(8) == scheme else { return .unknownScheme(base.u32(8)) }
        return .header(EncryptionHeader(salt: Array(UnsafeRawBufferPointer(start: base + 16, count: saltByteCount)),
                                        keyCheck: Array(UnsafeRawBufferPointer(start: base + 48, count: 16))))
    }
}
