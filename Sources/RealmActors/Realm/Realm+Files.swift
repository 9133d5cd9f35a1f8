import Foundation
internal import RealmRuntime

// The files of a configuration, without opening them.
extension Realm {
    /// Whether the realm file of `config` exists. Always `false` for in-memory realms.
    public static func fileExists(for config: Configuration) -> Bool {
        guard let url = config.fileURL else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// Deletes the realm file of `config` and its auxiliary files: the write-ahead log
    /// (`<file>.log`), the lock file (`<file>.lock`) and any temporary file a crash left behind
    /// (`.creating`, `.seeding`, `.copying`).
    ///
    /// - Returns: `true` if the realm file existed and was deleted, `false` if there was none.
    /// - Throws: ``Realm/Error`` with ``Realm/Error/Code/alreadyOpen`` while a handle — in this
    ///   process or another — has the file open (deleting it would leave that handle writing to a
    ///   file nobody can open again); ``Realm/Error/Code/filePermissionDenied`` or
    ///   ``Realm/Error/Code/fileAccess`` when a file exists but cannot be removed.
    @discardableResult
    public static func deleteFiles(for config: Configuration) throws -> Bool {
        guard let url = config.fileURL else { return false }
        // Deleted while no process can open the file: an open waiting meanwhile starts again on
        // new files, instead of writing to ones nobody can open again.
        let deleted: Bool?
        do {
            deleted = try SharedRealmFile.whileNotOpen(path: url.standardizedFileURL.path) { try deleteFiles(at: url) }
        } catch {
            throw Realm.Error.from(error, configuration: config)
        }
        guard let deleted else {
            throw Realm.Error(.alreadyOpen, "Cannot delete files of an open Realm: '\(url.path)' is still in use.", fileURL: url)
        }
        return deleted
    }

    /// Removes the realm file at `url` and its auxiliary files, the lock file last; whether the
    /// realm file existed.
    private static func deleteFiles(at url: URL) throws -> Bool {
        var deleted = false
        // The lock file last: an open arriving meanwhile opens it and waits for the lock held here.
        let auxiliary = AuxiliaryFile.allCases.filter { $0 != .lock } + [.lock]
        for file in [url] + auxiliary.map({ URL(fileURLWithPath: url.path + $0.suffix) }) {
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
