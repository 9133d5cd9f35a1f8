/// The error every layer below the public API throws.
///
/// The storage, object-store and runtime layers throw `StorageError`; the API layer turns it
/// into the public `Realm.Error` with the same code and message, so the two enums stay in
/// one-to-one correspondence (the API layer's `switch` over `Code` is exhaustive).
package struct StorageError: Error, Equatable, CustomStringConvertible {
    /// What went wrong, named after Realm's error codes.
    package enum Code: Sendable, Equatable {
        case fail
        case fileAccess
        case filePermissionDenied
        case fileExists
        case fileNotFound
        case incompatibleLockFile
        case formatUpgradeRequired
        case schemaMismatch
        case alreadyOpen
        case invalidInput
        case outOfDiskSpace
        case invalidDatabase
        case maximumActiveVersionsExceeded
        case wrongTransactionState
    }

    package var code: Code
    /// A sentence a user can act on, e.g. "Realm file has bad checksum in page 12".
    package var message: String
    /// The file the error concerns, if any.
    package var path: String?

    package init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    package var description: String {
        if let path { return "\(message) (\(path))" }
        return message
    }
}
