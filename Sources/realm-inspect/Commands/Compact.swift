import Foundation
import RealmActors
import Synchronization

/// `realm-inspect compact FILE`: rewrite the file without its free space, in place.
struct Compact: InspectorCommand {
    static let spec = CommandSpec(
        name: "compact", abstract: "Rewrite the file without its free space, safely and in place.",
        discussion: """
        Writes a compacted copy beside the file, syncs it and renames it over the file, so a \
        crash at any point leaves either the old file or the new one. The file must not be open \
        in another process.
        """,
        positionals: [.init(name: "file", help: "The realm file.")])

    let file: RealmFile

    init(_ arguments: ParsedArguments) throws(UsageError) { file = try RealmFile(arguments) }

    func run() throws -> ExitStatus {
        guard FileManager.default.fileExists(atPath: file.path) else { throw InspectionError("\(file.path): no such file") }
        // Compaction keeps only the newest version: the versions replication slots retain would
        // be lost, so a file with slots is not compacted (and compact-on-launch skips it too).
        // A damaged file is not rewritten: it is reported as damage, with its page (compacting
        // would fail for reasons that do not name it, or copy the damage). The read-only handle
        // is gone when the closure returns: the file is then opened for writing.
        // Slots a retention limit invalidated keep nothing and are carried into the copy.
        let slots = try { (realm: Realm) in
            _ = try realm.checkIntegrity()
            return try realm.replicationSlots.filter { $0.invalidation == nil }
        }(file.open())
        guard slots.isEmpty else {
            throw InspectionError("\(file.path) has replication slots (\(slots.map(\.name).joined(separator: ", "))); compacting would drop the versions they retain. Let their consumers catch up and drop them first (realm-inspect drop-slot)")
        }
        let before = try Self.size(of: file.path)
        var configuration = file.configuration(writable: true)
        // Asked only when this process has the file alone: compaction replaces the file, so it
        // is skipped (as Realm skips it) while another process has it open.
        let asked = Mutex(false)
        configuration.shouldCompactOnLaunch = { _, _ in
            asked.withLock { $0 = true }
            return true
        }
        var progress = Progress("compacting \(file.path)", quiet: file.quiet)
        progress.update(0)
        _ = try Realm(configuration: configuration)
        progress.finish()
        guard asked.withLock({ $0 }) else {
            throw InspectionError("\(file.path) is open in another process; compacting replaces the file, so it needs the file to itself: close it there first")
        }
        let after = try Self.size(of: file.path)
        let output = OutputBuffer()
        output.write("compacted \(file.path): \(before) → \(after) bytes\n")
        output.flush()
        return .success
    }

    static func size(of path: String) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.uint64Value ?? 0
    }
}
