public import Foundation
internal import RealmRuntime

extension Realm {
    /// The error thrown by every RealmActors operation that a caller can recover from.
    ///
    /// It mirrors Realm Swift's `Realm.Error`: a value with a ``Code``, a human-readable message
    /// and the URL of the file concerned. Both styles of `catch` work:
    ///
    /// ```swift
    /// do {
    ///     let realm = try Realm(configuration: config)
    /// } catch Realm.Error.schemaMismatch {
    ///     // the model classes differ from the file at the same schema version
    /// } catch let error as Realm.Error where error.code == .fileAccess {
    ///     print(error.localizedDescription)
    /// }
    /// ```
    public struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
        /// The kind of failure, with Realm's case names and, where Realm has the case, Realm's
        /// numbers (`RLMError`); the codes only RealmActors has are numbered from 1000.
        public enum Code: Int, Sendable, Equatable, CaseIterable {
            /// An unclassified failure; the message says what happened.
            case fail = 1
            /// The file could not be opened or read (I/O error, bad path, not a directory…).
            case fileAccess = 2
            /// The process lacks permission to open or create the file.
            case filePermissionDenied = 3
            /// A file that must not exist already does (for example the target of `writeCopy`).
            case fileExists = 4
            /// A file that must exist does not (for example a `readOnly` open of a missing file).
            case fileNotFound = 5
            /// The file needs a format upgrade that this handle may not perform (`readOnly`).
            case fileFormatUpgradeRequired = 6
            /// The lock file belongs to another process or another, incompatible version.
            case incompatibleLockFile = 8
            /// Mapping the file failed for lack of address space (Realm's code; not raised on
            /// 64-bit platforms, where a map section is reserved lazily).
            case addressSpaceExhausted = 9
            /// The model classes differ from the file's schema at the same schema version.
            case schemaMismatch = 10
            /// The file is already open in a way that conflicts with this request.
            case alreadyOpen = 12
            /// An argument or value was not acceptable (too large, wrong type, bad predicate…).
            case invalidInput = 13
            /// The disk filled up during a write; the file is unchanged since the last commit.
            case outOfDiskSpace = 14
            /// The file's format version is not one this library reads (Realm's code; RealmActors
            /// reports such files as ``invalidDatabase``, naming the version).
            case unsupportedFileFormatVersion = 16
            /// A file system operation on the realm's files failed (Realm's code).
            case fileOperationFailed = 19
            /// The file is not a realm file, is corrupt, or is from a newer format version.
            case invalidDatabase = 20
            /// Pinning another version would exceed `maximumNumberOfActiveVersions`.
            case maximumActiveVersionsExceeded = 1000
            /// The operation needs (or forbids) an open write transaction.
            case wrongTransactionState = 1001
            /// A replication slot passed a retention limit and was invalidated: it keeps nothing
            /// for its consumer, which must start again from a snapshot (drop the slot, create it
            /// again, and read ``Realm/replicationSnapshot(forSlot:)``).
            case replicationSlotInvalidated = 1002
            /// A replication consumer's position is not a point of the realm's retained history:
            /// the realm no longer keeps that version (the consumer's store was restored to an
            /// older state, or the slot moved past it), or the version was made by another commit
            /// (the realm was replaced by an older copy, or it is another realm). Applying the
            /// commits after it would skip or double changes; the consumer must resynchronize.
            case replicationPositionLost = 1003

            /// ``fileFormatUpgradeRequired``, by the name earlier versions of RealmActors used.
            public static var formatUpgradeRequired: Code { .fileFormatUpgradeRequired }
        }

        /// What went wrong.
        public let code: Code
        /// A sentence describing the failure.
        public let message: String
        /// The realm file concerned, when the failure is about a file.
        public let fileURL: URL?

        /// Creates an error; RealmActors creates these, user code usually only inspects them.
        public init(_ code: Code, _ message: String, fileURL: URL? = nil) {
            self.code = code
            self.message = message
            self.fileURL = fileURL
        }

        /// The message, followed by the file's path when there is one.
        public var description: String {
            if let fileURL { return "\(message) (\(fileURL.path))" }
            return message
        }

        /// The message, for `localizedDescription`.
        public var errorDescription: String? { description }
    }
}

extension Realm.Error: CustomNSError {
    /// `"io.realm"`, Realm's error domain (`RLMErrorDomain`): an error caught `as NSError`
    /// carries Realm's domain, code and details, as Realm Swift's does.
    public static var errorDomain: String { "io.realm" }
    /// The code's number (Realm's, where Realm has the case).
    public var errorCode: Int { code.rawValue }
    /// The message as the localized description, and the file's path under `NSFilePathErrorKey`.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        if let fileURL { info[NSFilePathErrorKey] = fileURL.path }
        return info
    }
}

extension Realm.Error.Code {
    /// Matches an error against a code, so `catch Realm.Error.fileAccess { … }` works.
    public static func ~= (code: Self, error: any Swift.Error) -> Bool {
        (error as? Realm.Error)?.code == code
    }
}

extension Realm.Error {
    /// Translates an error from the layers below into the public error; anything else passes through.
    static func from(_ error: any Swift.Error, configuration: Realm.Configuration? = nil) -> any Swift.Error {
        guard let storage = error as? RuntimeError else { return error }
        guard let configuration else { return Realm.Error(storage) }
        return Realm.Error(storage, configuration: configuration)
    }

    /// A runtime error as Realm reports it, naming the configuration's file if the error names none.
    init(_ error: RuntimeError, configuration: Realm.Configuration) {
        self.init(error)
        if fileURL == nil, let url = configuration.fileURL {
            self = Realm.Error(code, message, fileURL: url)
        }
    }

    init(_ error: RuntimeError) {
        let code: Code = switch error.code {
        case .fail: .fail
        case .fileAccess: .fileAccess
        case .filePermissionDenied: .filePermissionDenied
        case .fileExists: .fileExists
        case .fileNotFound: .fileNotFound
        case .incompatibleLockFile: .incompatibleLockFile
        case .formatUpgradeRequired: .fileFormatUpgradeRequired
        case .schemaMismatch: .schemaMismatch
        case .alreadyOpen: .alreadyOpen
        case .invalidInput: .invalidInput
        case .outOfDiskSpace: .outOfDiskSpace
        case .invalidDatabase: .invalidDatabase
        case .maximumActiveVersionsExceeded: .maximumActiveVersionsExceeded
        case .wrongTransactionState: .wrongTransactionState
        }
        self.init(code, error.message, fileURL: error.path.map { URL(fileURLWithPath: $0) })
    }
}

// Each case is also reachable as `Realm.Error.<case>`, as in Realm Swift, so that
// `catch Realm.Error.schemaMismatch` reads like the documentation.
extension Realm.Error {
    /// ``Code/fail``
    public static let fail = Code.fail
    /// ``Code/fileAccess``
    public static let fileAccess = Code.fileAccess
    /// ``Code/filePermissionDenied``
    public static let filePermissionDenied = Code.filePermissionDenied
    /// ``Code/fileExists``
    public static let fileExists = Code.fileExists
    /// ``Code/fileNotFound``
    public static let fileNotFound = Code.fileNotFound
    /// ``Code/incompatibleLockFile``
    public static let incompatibleLockFile = Code.incompatibleLockFile
    /// ``Code/fileFormatUpgradeRequired``
    public static let fileFormatUpgradeRequired = Code.fileFormatUpgradeRequired
    /// ``Code/fileFormatUpgradeRequired``, by the name earlier versions of RealmActors used.
    public static let formatUpgradeRequired = Code.fileFormatUpgradeRequired
    /// ``Code/addressSpaceExhausted``
    public static let addressSpaceExhausted = Code.addressSpaceExhausted
    /// ``Code/unsupportedFileFormatVersion``
    public static let unsupportedFileFormatVersion = Code.unsupportedFileFormatVersion
    /// ``Code/fileOperationFailed``
    public static let fileOperationFailed = Code.fileOperationFailed
    /// ``Code/schemaMismatch``
    public static let schemaMismatch = Code.schemaMismatch
    /// ``Code/alreadyOpen``
    public static let alreadyOpen = Code.alreadyOpen
    /// ``Code/invalidInput``
    public static let invalidInput = Code.invalidInput
    /// ``Code/outOfDiskSpace``
    public static let outOfDiskSpace = Code.outOfDiskSpace
    /// ``Code/invalidDatabase``
    public static let invalidDatabase = Code.invalidDatabase
    /// ``Code/maximumActiveVersionsExceeded``
    public static let maximumActiveVersionsExceeded = Code.maximumActiveVersionsExceeded
    /// ``Code/wrongTransactionState``
    public static let wrongTransactionState = Code.wrongTransactionState
    /// ``Code/replicationSlotInvalidated``
    public static let replicationSlotInvalidated = Code.replicationSlotInvalidated
    /// ``Code/replicationPositionLost``
    public static let replicationPositionLost = Code.replicationPositionLost
}
