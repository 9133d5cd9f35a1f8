import Foundation
import RealmActors

/// `realm-inspect check FILE`: the full integrity check.
struct Check: InspectorCommand {
    static let spec = CommandSpec(
        name: "check", abstract: "Read every page of the file's newest version and check it.",
        discussion: """
        Checks each page's checksum (and authentication tag, if encrypted) and the transaction \
        that wrote it, key order and counts in every tree, the runs of large values, and that \
        every page of the file is used or free exactly once. Exits with status 1 and the problems \
        found on standard error if the file is damaged.
        """,
        positionals: [.init(name: "file", help: "The realm file.")])

    let file: RealmFile

    init(_ arguments: ParsedArguments) throws(UsageError) { file = try RealmFile(arguments) }

    func run() throws -> ExitStatus {
        var progress = Progress("checking \(file.path)", quiet: file.quiet)
        progress.update(0)
        let report = try file.open().checkIntegrity()
        progress.finish()
        let output = OutputBuffer()
        output.write("ok: version \(report.version), \(report.pages) pages (\(report.usedPages) used, \(report.freePages) free), ")
        output.write("\(report.trees) trees, \(report.entries) entries\n")
        for (kind, count) in report.pagesByKind.sorted(by: { $0.key < $1.key }) { output.write("  \(kind): \(count) pages\n") }
        output.flush()
        return .success
    }
}
