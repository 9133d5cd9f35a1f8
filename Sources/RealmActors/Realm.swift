import Foundation

/// A realm: one embedded object database file (or in-memory store), seen through one handle.
///
/// This is the entry point of the API, named and shaped after Realm Swift's `Realm`.
/// The handle is not `Sendable`: the compiler keeps it in the actor or thread that opened it.
/// Pass frozen snapshots between actors instead.
///
/// The object API (`write`, `add`, `objects`, …) arrives with the object model; what exists now
/// is the configuration, errors and file management.
public final class Realm {
    /// The configuration this realm was opened with.
    public let configuration: Configuration

    private init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// The lock file kept beside a realm file (`<file>.lock`).
    static func lockFileURL(for fileURL: URL) -> URL {
        fileURL.appendingPathExtension("lock")
    }

    /// Whether the realm file of `config` exists. Always `false` for in-memory realms.
    public static func fileExists(for config: Configuration) -> Bool {
        guard let url = config.fileURL else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// Deletes the realm file of `config` and its auxiliary files (the lock file).
    ///
    /// - Returns: `true` if the realm file existed and was deleted, `false` if there was none.
    /// - Throws: ``Realm/Error`` with ``Realm/Error/Code/filePermissionDenied`` or
    ///   ``Realm/Error/Code/fileAccess`` when a file exists but cannot be removed.
    @discardableResult
    public static func deleteFiles(for config: Configuration) throws -> Bool {
        guard let url = config.fileURL else { return false }
        var deleted = false
        for file in [url, lockFileURL(for: url)] {
            do {
                try FileManager.default.removeItem(at: file)
                if file == url { deleted = true }
            } catch CocoaError.fileNoSuchFile {
                continue
            } catch CocoaError.fileWriteNoPermission {
                throw Realm.Error(.filePermissionDenied, "Permission denied deleting realm file", fileURL: file)
            } catch {
                throw Realm.Error(.fileAccess, "Could not delete realm file: \(error.localizedDescription)", fileURL: file)
            }
        }
        return deleted
    }
}
