/// The two keys of an encrypted file, derived from the 64-byte key the user gives
/// (`Realm.Configuration.encryptionKey`), as Realm derives them: bytes 0–31 are the AES-256 key,
/// bytes 32–63 the HMAC-SHA-256 key.
///
/// No hashing or stretching is involved: the user key is already 512 random bits (Realm's API
/// asks for a random key, not a password), so splitting it gives two independent 256-bit keys,
/// and files stay compatible with Realm's key handling. A password would need a slow KDF first;
/// that is the application's business, as in Realm.
package struct PageEncryptionKeys: Sendable {
    /// The user key's length in bytes.
    package static let userKeyByteCount = 64

    /// Encrypts page contents.
    package let cipher: AES256
    /// Authenticates encrypted pages.
    package let authenticator: HMACSHA256

    /// The keys derived from `userKey`, or nil when it is not 64 bytes.
    package init?(userKey: UnsafeRawBufferPointer, implementation: AES256.Implementation = .best) {
        guard userKey.count == Self.userKeyByteCount else { return nil }
        cipher = AES256(key: UnsafeRawBufferPointer(rebasing: userKey[0..<32]), implementation: implementation)
        authenticator = HMACSHA256(key: UnsafeRawBufferPointer(rebasing: userKey[32..<64]))
    }

    /// The keys derived from `userKey`, or nil when it is not 64 bytes.
    package init?(userKey: [UInt8], implementation: AES256.Implementation = .best) {
        guard let keys = userKey.withUnsafeBytes({ PageEncryptionKeys(userKey: $0, implementation: implementation) }) else {
            return nil
        }
        self = keys
    }
}
