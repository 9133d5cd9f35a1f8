public import Foundation
internal import RealmRuntime

extension Realm {
    /// Writes a compacted copy of this handle's current version to a new file: Realm Swift's
    /// `writeCopy(toFile:encryptionKey:)`, for backups and for shipping a pre-populated realm.
    ///
    /// ```swift
    /// try realm.writeCopy(toFile: backups.appendingPathComponent("orders-\(day).realm"))
    /// ```
    ///
    /// The copy holds the objects as this handle sees them — inside a write transaction, with its
    /// uncommitted changes, as in Realm — packed into as few pages as they need (nothing of older
    /// versions, no free space). It can be taken from any handle while other actors keep writing
    /// (an online backup: the version copied stays pinned until the copy is done). The file is
    /// written under a temporary name and put in place once synced, so a crash leaves no partial
    /// copy at `fileURL`. It opens with the same schema and data.
    ///
    /// The copy is encrypted with `encryptionKey`, or not encrypted without one, whatever this
    /// realm's file is: this is how a realm is encrypted, decrypted or given a new key (write the
    /// copy, then replace the file while no handle has it open).
    ///
    /// - Parameters:
    ///   - fileURL: where to write the copy; no file may exist there.
    ///   - encryptionKey: the copy's 64-byte key, or nil for an unencrypted copy.
    /// - Throws: ``Realm/Error/Code/fileExists`` if a file exists at `fileURL`;
    ///   ``Realm/Error/Code/invalidInput`` for a key that is not 64 bytes; a ``Realm/Error`` if
    ///   the copy cannot be written.
    public func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        if let encryptionKey, encryptionKey.count != 64 {
            throw Realm.Error(.invalidInput, "Encryption key must be exactly 64 bytes, got \(encryptionKey.count)", fileURL: fileURL)
        }
        let key = encryptionKey.map { [UInt8]($0) }
        let layouts = catalog.tableLayouts
        let path = fileURL.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            if let writer {
                // Classes first used in this transaction are recorded at its commit; the copy
                // needs them now (writing the schema again at the commit changes nothing).
                if schemaChangedInWrite { try writer.writeSchema(catalog.stored) }
                try Database.writeCompactCopy(of: writer, tables: layouts, to: path, encryptionKey: key)
            } else {
                try Database.writeCompactCopy(of: reader, tables: layouts, to: path, encryptionKey: key)
            }
        } catch {
            var configuration = self.configuration
            configuration.fileURL = fileURL
            throw Realm.Error.from(error, configuration: configuration)
        }
    }

    /// Writes a compacted copy of this handle's current version to the file of `configuration`
    /// (see ``writeCopy(toFile:encryptionKey:)``), encrypted with its
    /// ``Realm/Configuration/encryptionKey``: Realm Swift's `writeCopy(configuration:)`.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` for an in-memory configuration;
    ///   ``Realm/Error/Code/fileExists`` if its file exists.
    public func writeCopy(configuration: Realm.Configuration) throws {
        guard let fileURL = configuration.fileURL else {
            throw Realm.Error(.invalidInput, "A copy can only be written to a file, not to an in-memory realm")
        }
        try writeCopy(toFile: fileURL, encryptionKey: configuration.encryptionKey)
    }
}
