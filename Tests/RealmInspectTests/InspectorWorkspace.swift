import Foundation
import RealmActors
import Testing
import RealmTestSupport

/// A test's workspace for `realm-inspect`: its own temporary directory, the inspector run in it,
/// and the files the tests make there — realms written through the public API (plain or
/// encrypted), key files, scratch directories for damaged copies — with the page surgery that
/// damages a file and the report `recover` writes.
///
/// A value per test (a suite holds one, made in its `init`): the directory goes when the suite's
/// instance is released, after the test.
struct InspectorWorkspace {
    /// The page size of the files (FORMAT.md): damage is aimed at pages.
    static let pageSize = 4096

    let directory: TemporaryDirectory
    let inspector: InspectorProcess

    init() throws {
        directory = try TemporaryDirectory()
        inspector = InspectorProcess(directory: directory.url)
    }

    /// The path of `name` in the directory.
    func path(_ name: String) -> String { directory.path(name) }

    /// A new directory `name` inside this one: a variant's copies and the files its commands write.
    func subdirectory(_ name: String) throws -> URL {
        let url = directory.url.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `realm-inspect ARGUMENTS…` (see ``InspectorProcess/run(_:timeout:)``).
    func run(_ arguments: [String], timeout: Duration? = nil) throws -> InspectorProcess.Outcome {
        try inspector.run(arguments, timeout: timeout)
    }

    func run(_ arguments: String...) throws -> InspectorProcess.Outcome { try run(arguments) }

    // MARK: Realms and keys

    /// The configuration of the realm at `path` with `objectTypes`.
    static func configuration(_ path: String, encryptionKey: Data? = nil, readOnly: Bool = false,
                              objectTypes: [ObjectBase.Type]) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), encryptionKey: encryptionKey, readOnly: readOnly, objectTypes: objectTypes)
    }

    /// Makes the realm at `path` (encrypted with `encryptionKey` if given): `fill` adds its
    /// objects in one write transaction. Returns its configuration.
    @discardableResult
    static func makeRealm(at path: String, encryptionKey: Data? = nil, objectTypes: [ObjectBase.Type],
                          fill: (Realm) throws -> Void) throws -> Realm.Configuration {
        let configuration = configuration(path, encryptionKey: encryptionKey, objectTypes: objectTypes)
        let realm = try Realm(configuration: configuration)
        try realm.write { try fill(realm) }
        return configuration
    }

    /// Opens the realm at `path` read-only, as a test checks what a command wrote.
    static func openReadOnly(_ path: String, encryptionKey: Data? = nil, objectTypes: [ObjectBase.Type]) throws -> Realm {
        try Realm(configuration: configuration(path, encryptionKey: encryptionKey, readOnly: true, objectTypes: objectTypes))
    }

    /// Writes `key` to the file `name` — raw bytes, or with `hex` as hexadecimal text and a
    /// newline (the inspector reads both) — and returns the file's path.
    func keyFile(_ key: Data, named name: String, hex: Bool = false) throws -> String {
        let path = path(name)
        try (hex ? Data((key.map { String(format: "%02x", $0) }.joined() + "\n").utf8) : key).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: Damage

    /// The table leaves (page kind 6) of the plaintext file at `path` whose bytes hold `marker`.
    static func tableLeaves(of path: String, holding marker: String) throws -> [Int] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return (2..<data.count / pageSize).filter { page in
            let bytes = data[page * pageSize..<(page + 1) * pageSize]
            return bytes[bytes.startIndex + 16] == 6 && bytes.range(of: Data(marker.utf8)) != nil
        }
    }

    /// Flips the bits of `mask` in byte `byte` of page `page` of the file at `path`.
    static func flipBits(_ mask: UInt8 = 0x10, at byte: Int = 200, inPage page: Int, of path: String) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        data[page * pageSize + byte] ^= mask
        try data.write(to: URL(fileURLWithPath: path))
    }

    // MARK: recover

    /// What `recover --format json` reported: the outcome, the report, and its classes by name.
    struct RecoverReport {
        let outcome: InspectorProcess.Outcome
        let report: [String: Any]
        /// The report's entry of each class (`saved`, `lost`, `damage`), by class name.
        var classes: [String: [String: Any]] {
            Dictionary(uniqueKeysWithValues: (report["classes"] as? [[String: Any]] ?? []).map { ($0["class"] as? String ?? "", $0) })
        }
    }

    /// Runs `recover PATH OUT --format json` with `options`, and reads its report.
    func recover(_ path: String, to out: String, options: [String] = []) throws -> RecoverReport {
        let outcome = try run(["recover", path, out, "--format", "json"] + options)
        return RecoverReport(outcome: outcome, report: try InspectorTests.jsonObject(outcome.lines.first ?? ""))
    }
}
