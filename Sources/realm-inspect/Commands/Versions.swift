import Foundation
import RealmActors

/// `realm-inspect versions FILE`: the versions the file holds.
struct Versions: InspectorCommand {
    static let spec = CommandSpec(
        name: "versions", abstract: "Show the file's newest version, the versions live, and what the write-ahead log held.",
        discussion: """
        A realm keeps one version per commit only while something reads it: a handle, a frozen \
        snapshot or a change notification of the writing process. At rest a file holds its newest \
        version; commits made durable in its write-ahead log but not yet checkpointed into the \
        file (after a crash) are applied when it opens, in memory for this read-only inspection.
        """,
        positionals: [.init(name: "file", help: "The realm file.")])

    let file: RealmFile

    init(_ arguments: ParsedArguments) throws(UsageError) { file = try RealmFile(arguments) }

    func run() throws -> ExitStatus {
        let statistics = try file.open().fileStatistics
        let output = OutputBuffer()
        output.write("newest version: \(statistics.version)\n")
        output.write("active versions: \(statistics.activeVersions) (in this process)\n")
        output.write("pinned bytes: \(statistics.pinnedBytes)\n")
        output.write("write-ahead log records applied at open: \(statistics.logRecordsReplayed)\n")
        output.flush()
        return .success
    }
}
