package import Foundation

/// A fresh directory per test, removed when the value is released, so tests run in parallel
/// without sharing files. Its name starts with the test target's (`RealmStorageTests-…`), so a
/// directory left behind by a crashed run says where it came from.
///
/// Keep the value alive while the files are in use (hold it in a `let` the test uses last, or
/// `withExtendedLifetime`): its deinit removes the directory.
package final class TemporaryDirectory {
    package let url: URL

    /// `caller` is only there for the name: its module part (`#fileID` is `Module/File.swift`).
    package init(_ caller: String = #fileID) throws {
        let module = caller.split(separator: "/").first.map(String.init) ?? "RealmTests"
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(module)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    package func path(_ name: String = "test.realm") -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
