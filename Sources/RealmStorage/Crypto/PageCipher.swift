/// The transform between a page as the storage layer sees it (plaintext, sealed with its
/// checksum) and as an encrypted file stores it. One per open encrypted file.
///
/// # The encrypted page
///
/// A page or run (a wide table leaf, an overflow run) of `L` bytes at page `n`, written by
/// transaction `t`, is stored as:
///
/// | bytes | plaintext page | encrypted page |
/// |---|---|---|
/// | 0..<8 | checksum | tag: the first 8 bytes of HMAC-SHA-256(`macKey`, LE64(`n`) ‖ bytes 8..<L) |
/// | 8..<16 | transaction `t` | `t`, in the clear |
/// | 16..<L | header rest, content | AES-256-CTR(`aesKey`, counter block `t ‖ n·2^24`) |
///
/// Meta pages (0 and 1) differ only in their last 64 bytes, which hold the file's
/// ``EncryptionHeader`` in the clear (authenticated by the tag, not encrypted).
///
/// ## Why it is safe
///
/// - *Counter uniqueness.* CTR is broken by a counter value used twice under one key. The counter
///   block of byte `16 + 16i` of page `n` written by `t` is the 128-bit integer
///   `t·2^64 + n·2^24 + i`: distinct for distinct `(t, n, i)` while `i < 2^24` (runs are far
///   shorter than 256 MiB) and `n < 2^40`. The storage layer never stamps one transaction id on
///   two different pages at the same page number, not even across crashes (FORMAT.md, "Commit
///   and recovery"; `Database.idReserve`), so within a file no counter repeats for different
///   plaintexts. Across files — a copy, a compaction, a file deleted and created again under
///   the same user key — the `(t, n)` pairs do repeat, so the keys are per file: derived from
///   the user key and a random 32-byte salt chosen when the file is created.
/// - *Encrypt-then-MAC.* The tag covers everything stored but itself, plus the page number, and
///   is checked (in constant time) before a byte is decrypted. A page moved to another number, a
///   stale page, a torn write, a flipped bit or a wrong key all fail it. The tag is HMAC-SHA-256
///   truncated to 64 bits, the room the page header has: a forgery succeeds with probability
///   2^-64 per attempt, and each attempt is an open of a modified file.
/// - *Keys.* `aesKey = HMAC-SHA-256(userKey[0..<32], "RealmActors AES" ‖ salt)`, `macKey =
///   HMAC-SHA-256(userKey[32..<64], "RealmActors MAC" ‖ salt)`: HMAC as a pseudo-random function
///   (the HKDF-Expand step), from disjoint halves of the user key as Realm splits it, so neither
///   key says anything about the other or about the user key. ``EncryptionHeader/keyCheck`` is
///   one more output of the MAC key, stored so a wrong key is told from a damaged file.
/// - *What stays visible.* Transaction ids, page positions and run lengths, and the meta pages'
///   encryption header; nothing the application wrote.
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
    private let mac: HMACSHA256

    /// The cipher of a file with `header` (its salt) under `userKey` (64 bytes), or nil when the
    /// key is not 64 bytes. Does not check the key against the header: see ``isKeyCorrect``.
    package init?(userKey: [UInt8], salt: [UInt8], implementation: AES256.Implementation = .best) {
        guard userKey.count == Self.userKeyByteCount, salt.count == EncryptionHeader.saltByteCount else { return nil }
        func derive(_ key: ArraySlice<UInt8>, _ label: String) -> [UInt8] {
            HMACSHA256(key: Array(key)).code(for: Array(label.utf8) + salt).bytes
        }
        var aesKey = derive(userKey[0..<32], "RealmActors AES")
        let macKey = derive(userKey[32..<64], "RealmActors MAC")
        aes = AES256(key: aesKey, implementation: implementation)
        mac = HMACSHA256(key: macKey)
        header = EncryptionHeader(salt: salt, keyCheck: Array(mac.code(for: Array("RealmActors key check".utf8)).bytes.prefix(16)))
        for index in aesKey.indices { aesKey[index] = 0 }
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

    /// The counter block of byte 16 of page `number` written by `transaction`.
    @inline(__always)
    private static func counter(page number: PageNumber, transaction: TransactionID) -> AESBlock {
        AESBlock(bigEndianHigh: transaction, low: number << 24)
    }

    /// The encrypted part of a page or run of `length` bytes at `number`.
    @inline(__always)
    private static func encryptedRange(page number: PageNumber, length: Int) -> Range<Int> {
        16..<(number < PageLayout.firstDataPage ? metaHeaderOffset : length)
    }

    private func tag(_ stored: UnsafeRawPointer, length: Int, page number: PageNumber) -> UInt64 {
        var hasher = mac.hasher()
        withUnsafeBytes(of: number.littleEndian) { hasher.update($0) }
        hasher.update(UnsafeRawBufferPointer(start: stored + 8, count: length - 8))
        return mac.finalize(hasher).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    /// The tags of two stored pages or runs at once (``HMACSHA256/codes(for:_:)``: the two
    /// HMACs side by side, faster than one after the other). Each is exactly `tag(…)`.
    private func tags(_ first: UnsafeRawPointer, length firstLength: Int, page firstNumber: PageNumber,
                      _ second: UnsafeRawPointer, length secondLength: Int, page secondNumber: PageNumber) -> (UInt64, UInt64) {
        withUnsafeBytes(of: firstNumber.littleEndian) { firstHead in
            withUnsafeBytes(of: secondNumber.littleEndian) { secondHead in
                let (a, b) = mac.codes(for: (firstHead, UnsafeRawBufferPointer(start: first + 8, count: firstLength - 8)),
                                       (secondHead, UnsafeRawBufferPointer(start: second + 8, count: secondLength - 8)))
                return (a.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }, b.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) })
            }
        }
    }

    /// Writes the stored form of the plaintext page or run `plain` (`length` bytes, a whole
    /// number of pages) at page `number` into `stored` (as long; not overlapping).
    package func encrypt(_ plain: UnsafeRawPointer, length: Int, page number: PageNumber, into stored: UnsafeMutableRawPointer) {
        encryptUntagged(plain, length: length, page: number, into: stored)
        seal(stored, length: length, page: number)
    }

    /// `encrypt` without the tag: bytes 8..<`length` of the stored form. Finish with ``seal(_:length:page:)``
    /// or, two stored pages at a time (faster), ``seal(_:length:page:_:length:page:)``.
    package func encryptUntagged(_ plain: UnsafeRawPointer, length: Int, page number: PageNumber, into stored: UnsafeMutableRawPointer) {
        let transaction = plain.pageTransaction
        stored.setU64(PageLayout.transactionOffset, transaction)
        let range = Self.encryptedRange(page: number, length: length)
        aes.ctr(UnsafeRawBufferPointer(start: plain + range.lowerBound, count: range.count),
                into: UnsafeMutableRawBufferPointer(start: stored + range.lowerBound, count: range.count),
                counter: Self.counter(page: number, transaction: transaction))
        if range.upperBound < length {
            header.encode(into: stored + range.upperBound)
        }
    }

    /// Writes the tag of the stored page or run at `number` (`length` bytes, from ``encryptUntagged(_:length:page:into:)``).
    package func seal(_ stored: UnsafeMutableRawPointer, length: Int, page number: PageNumber) {
        stored.storeBytes(of: tag(UnsafeRawPointer(stored), length: length, page: number), as: UInt64.self)
    }

    /// Writes the tags of two stored pages or runs (not overlapping), computed side by side.
    package func seal(_ first: UnsafeMutableRawPointer, length firstLength: Int, page firstNumber: PageNumber,
                      _ second: UnsafeMutableRawPointer, length secondLength: Int, page secondNumber: PageNumber) {
        let (a, b) = tags(UnsafeRawPointer(first), length: firstLength, page: firstNumber,
                          UnsafeRawPointer(second), length: secondLength, page: secondNumber)
        first.storeBytes(of: a, as: UInt64.self)
        second.storeBytes(of: b, as: UInt64.self)
    }

    /// Decrypts the first 16 bytes of the page header (kind, flags, count, aux) of the stored
    /// page at `number` into `header` (24 bytes; bytes 16..<24 are written), without
    /// authenticating them: enough to learn a run's length before reading the rest.
    package func peekHeader(_ stored: UnsafeRawPointer, page number: PageNumber, into header: UnsafeMutableRawPointer) {
        aes.ctr(UnsafeRawBufferPointer(start: stored + 16, count: 8), into: UnsafeMutableRawBufferPointer(start: header + 16, count: 8),
                counter: Self.counter(page: number, transaction: stored.pageTransaction))
    }

    /// Whether the stored page or run `stored` of `length` bytes carries the tag of page
    /// `number` under this file's keys (compared in constant time).
    package func isAuthentic(_ stored: UnsafeRawPointer, length: Int, page number: PageNumber) -> Bool {
        let expected = tag(stored, length: length, page: number)
        let actual = stored.loadUnaligned(as: UInt64.self)
        return withUnsafeBytes(of: expected) { a in withUnsafeBytes(of: actual) { b in ConstantTime.equals(a, b) } }
    }

    /// Authenticates the stored page or run `stored` of `length` bytes at `number` and, if it is
    /// authentic, writes its plaintext (checksum recomputed) into `plain`. Returns false, writing
    /// nothing, if the tag does not match.
    package func decrypt(_ stored: UnsafeRawPointer, length: Int, page number: PageNumber, into plain: UnsafeMutableRawPointer) -> Bool {
        guard isAuthentic(stored, length: length, page: number) else { return false }
        plain.setU64(PageLayout.transactionOffset, stored.pageTransaction)
        let range = Self.encryptedRange(page: number, length: length)
        aes.ctr(UnsafeRawBufferPointer(start: stored + range.lowerBound, count: range.count),
                into: UnsafeMutableRawBufferPointer(start: plain + range.lowerBound, count: range.count),
                counter: Self.counter(page: number, transaction: stored.pageTransaction))
        if range.upperBound < length {
            (plain + range.upperBound).initializeMemory(as: UInt8.self, repeating: 0, count: length - range.upperBound)
        }
        PageChecksum.seal(plain, length: length)
        return true
    }
}

/// What the meta pages of an encrypted file say in the clear, in their last 64 bytes: that the
/// file is encrypted (so opening it without a key says so), the salt its keys are derived from,
/// and a check value that tells a wrong key from a damaged file.
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `"RLMAENC\0"` |
/// | 8 | 4 | scheme: 1 (AES-256-CTR, HMAC-SHA-256 truncated to 64 bits, per-file keys) |
/// | 12 | 4 | zero |
/// | 16 | 32 | salt |
/// | 48 | 16 | key check: HMAC-SHA-256(`macKey`, "RealmActors key check"), first 16 bytes |
package struct EncryptionHeader: Equatable, Sendable {
    package static let byteCount = 64
    static let saltByteCount = 32
    static let magic: UInt64 = 0x00_434E_4541_4D4C_52  // "RLMAENC\0" little-endian
    static let scheme: UInt32 = 1

    package var salt: [UInt8]
    package var keyCheck: [UInt8]

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
