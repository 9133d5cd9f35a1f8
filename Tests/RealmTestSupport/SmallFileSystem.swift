package import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small tmpfs mounted in a fresh temporary directory, for tests that fill a disk for real.
///
/// Mounting needs root (CI runs as root; a developer's machine often does not), so
/// ``mount(megabytes:)`` returns nil with the reason where the system refuses, and the test skips.
/// The file system is unmounted when the value is released — in every path out of the test, a
/// thrown error or a failed expectation included — and, should a file still be open in it (a
/// handle the test leaked), detached lazily, so no mount outlives the test process's use of it.
package final class SmallFileSystem {
    /// The mount point: an empty directory of `megabytes` MB.
    package let url: URL
    private let parent: URL

    private init(url: URL, parent: URL) {
        self.url = url
        self.parent = parent
    }

    /// Mounts a tmpfs of `megabytes` MB, or returns why it cannot (not Linux, not root, no
    /// mount permission in this container). `caller` only names the mount's parent directory
    /// after the test target, as ``TemporaryDirectory`` does.
    package static func mount(megabytes: Int, _ caller: String = #fileID) throws -> Result<SmallFileSystem, SkipReason> {
        #if os(Linux)
        let module = caller.split(separator: "/").first.map(String.init) ?? "RealmTests"
        let parent = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(module)-fs-\(UUID().uuidString)", isDirectory: true)
        let url = parent.appendingPathComponent("disk", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard Glibc.mount("tmpfs", url.path, "tmpfs", 0, "size=\(megabytes)m,mode=0700") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: parent)
            return .failure(SkipReason(message: "mounting a \(megabytes) MB tmpfs is not permitted here (\(reason)); run as root to test a full disk"))
        }
        return .success(SmallFileSystem(url: url, parent: parent))
        #else
        return .failure(SkipReason(message: "a small tmpfs needs Linux"))
        #endif
    }

    /// Gives the file system `megabytes` MB in all: space is freed, or taken away.
    package func resize(megabytes: Int) throws {
        #if os(Linux)
        guard Glibc.mount("tmpfs", url.path, "tmpfs", UInt(MS_REMOUNT), "size=\(megabytes)m") == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        #endif
    }

    deinit {
        #if os(Linux)
        if umount2(url.path, 0) != 0 { _ = umount2(url.path, Int32(MNT_DETACH)) }
        #endif
        try? FileManager.default.removeItem(at: parent)
    }

    /// Why a test that needs a small file system cannot run here.
    package struct SkipReason: Error, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }
}
