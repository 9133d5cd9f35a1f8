import Foundation
import RealmActors
import RealmStorage

/// `log`: a write-ahead log (`<file>.log`) beside a valid data file (`Fuzz/Fixtures/log-base.realm`,
/// the state its seed logs start from), recovered by a writable open through the public API.
///
/// Before the log is written, the harness makes the mutation reach recovery's decoding: the
/// header names the data file it now sits beside (device and inode, which a copy changes), and
/// the header, each record header and each image get their checksums recomputed — the log a
/// broken or hostile writer would leave, rather than one that fails its first checksum.
///
/// What must hold: the open replays valid records and refuses the rest (or throws); a file
/// that then passes `checkIntegrity()` reads whole, as in ``RealmFileTarget``. Recovery grows the
/// data file to a record's page count, so the process's file-size limit is 64 MiB: a record
/// claiming more makes the open throw (`EFBIG`) instead of filling the disk.
final class LogRecoveryTarget: FuzzTarget {
    private let scratch = ScratchDirectory("log")
    /// The data file's bytes: an array, not `Data`, whose storage LeakSanitizer cannot trace
    /// from this object and would report as leaked at exit.
    private let base: [UInt8]

    init() {
        let fixture = FuzzPaths.fixture("log-base.realm")
        guard let base = FileManager.default.contents(atPath: fixture) else {
            fatalError("realm-fuzz log: no data file at \(fixture) (run from the package's root, or set REALM_FUZZ_FIXTURES)")
        }
        self.base = [UInt8](base)
        let fileSize = Int32(RLIMIT_FSIZE.rawValue)
        var limit = rlimit()
        if getrlimit(fileSize, &limit) == 0 {
            limit.rlim_cur = min(limit.rlim_max, 64 << 20)
            setrlimit(fileSize, &limit)
        }
        signal(SIGXFSZ, SIG_IGN)
    }

    func run(_ input: Data) -> String {
        scratch.clear()
        let path = scratch.write(base, to: "fuzz.realm")
        var info = stat()
        guard stat(path, &info) == 0 else { return "no data file" }
        var log = [UInt8](input)
        LogSealing.seal(&log, device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        _ = scratch.write(log, to: "fuzz.realm.log")
        var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
        configuration.objectTypes = nil
        do {
            let realm = try Realm(configuration: configuration)
            let report = try realm.checkIntegrity()
            return "version \(report.version), read \(RealmReading.readEverything(realm))"
        } catch {
            return "refused: \(error)"
        }
    }
}

/// Points a log's header at a data file and recomputes every checksum in it, following the
/// layout in FORMAT.md ("Write-ahead log"); stops at the first record that does not fit.
enum LogSealing {
    static func seal(_ log: inout [UInt8], device: UInt64, inode: UInt64) {
        let pageSize = PageLayout.pageSize
        guard log.count >= pageSize else { return }
        log.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            base.storeBytes(of: device.littleEndian, toByteOffset: 32, as: UInt64.self)
            base.storeBytes(of: inode.littleEndian, toByteOffset: 40, as: UInt64.self)
            PageChecksum.seal(base, length: 64)
            var offset = pageSize
            while offset + pageSize <= buffer.count {
                let entries = Int(buffer.loadUnaligned(fromByteOffset: offset + 40, as: UInt32.self).littleEndian)
                let headerPages = (64 + 24 * entries + pageSize - 1) / pageSize
                guard offset + headerPages * pageSize <= buffer.count else { return }
                let headerLength = (64 + 24 * entries + 7) / 8 * 8
                PageChecksum.seal(base + offset, length: headerLength)
                var image = offset + headerPages * pageSize
                for entry in 0..<entries {
                    let count = buffer.loadUnaligned(fromByteOffset: offset + 64 + 24 * entry + 8, as: UInt64.self).littleEndian
                    guard count > 0, count <= UInt64((buffer.count - image) / pageSize) else { return }
                    PageChecksum.seal(base + image, length: Int(count) * pageSize)
                    image += Int(count) * pageSize
                }
                offset = image
            }
        }
    }
}

/// Where the harnesses find their fixtures: `$REALM_FUZZ_FIXTURES`, else `Fuzz/Fixtures` under
/// the current directory (the package's root, where `Scripts/fuzz.sh` runs).
enum FuzzPaths {
    static func fixture(_ name: String) -> String {
        let directory = ProcessInfo.processInfo.environment["REALM_FUZZ_FIXTURES"] ?? "Fuzz/Fixtures"
        return "\(directory)/\(name)"
    }
}
