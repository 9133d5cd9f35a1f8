import Foundation
import RealmActors

/// The realm file a subcommand works on: its path and the options every subcommand shares.
struct RealmFile {
    let path: String
    let encryptionKey: Data?
    let quiet: Bool

    /// The file named by the positional argument at `position`, with the shared options.
    init(_ arguments: ParsedArguments, pathAt position: Int = 0) throws(UsageError) {
        path = arguments[position: position]!
        quiet = arguments.flag("quiet")
        encryptionKey = try arguments.options["encryption-key-file"].map { path throws(UsageError) in try Self.key(fromFileAt: path) }
    }

    /// The configuration that opens the file: read-only unless `writable`, with no model
    /// classes (every class is read through the dynamic API, whatever the schema).
    func configuration(writable: Bool = false) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path), encryptionKey: encryptionKey, readOnly: !writable)
        configuration.objectTypes = nil
        return configuration
    }

    /// Opens the file; a missing file is an ``InspectionError`` (a read-only open would say so
    /// too, but a writable one would create it).
    func open(writable: Bool = false) throws -> Realm {
        guard FileManager.default.fileExists(atPath: path) else { throw InspectionError("\(path): no such file") }
        return try Realm(configuration: configuration(writable: writable))
    }

    /// The 64-byte key in the file at `path`: the raw bytes, or 128 hexadecimal digits (white
    /// space around them ignored).
    static func key(fromFileAt path: String) throws(UsageError) -> Data {
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw UsageError("Cannot read the encryption key file '\(path)'")
        }
        if contents.count == 64 { return contents }
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count == 128, text.allSatisfy(\.isHexDigit) {
            var bytes = Data(capacity: 64)
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                bytes.append(UInt8(text[index..<next], radix: 16)!)
                index = next
            }
            return bytes
        }
        throw UsageError("The encryption key file '\(path)' must hold 64 bytes, or 128 hexadecimal digits (it holds \(contents.count) bytes)")
    }
}

extension Realm {
    /// The class named `name` in this realm's schema, or an ``InspectionError`` listing the
    /// classes there are.
    func objectSchema(named name: String) throws -> ObjectSchema {
        if let schema = schema[name] { return schema }
        let names = schema.objectSchema.map(\.className).sorted()
        throw InspectionError("The realm has no class '\(name)'; its classes: \(names.isEmpty ? "none" : names.joined(separator: ", "))")
    }
}
