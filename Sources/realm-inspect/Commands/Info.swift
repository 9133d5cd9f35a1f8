import Foundation
import RealmActors

/// `realm-inspect info FILE`: the file's format, size and how its pages are used.
struct Info: InspectorCommand {
    static let spec = CommandSpec(
        name: "info", abstract: "Show the file's format version, page size, size, live, free, pinned and retained bytes, version, and replication slots with their backlog.",
        positionals: [.init(name: "file", help: "The realm file.")],
        options: [.init(name: "format", valueName: "format", help: "How to print.", choices: ["text", "json"], defaultValue: "text")])

    let file: RealmFile
    let json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = try RealmFile(arguments)
        json = arguments.options["format"] == "json"
    }

    func run() throws -> ExitStatus {
        let realm = try file.open()
        let statistics = realm.fileStatistics
        let slots = try realm.replicationSlots
        let classes = realm.schema.objectSchema.map { ($0.className, $0.isEmbedded ? nil : realm.dynamicObjects($0.className).count) }
        let output = OutputBuffer()
        if json {
            let fields: [(String, String)] = [
                ("path", ValueText.quoted(file.path)), ("formatVersion", "\(statistics.formatVersion)"),
                ("pageSize", "\(statistics.pageSize)"), ("fileBytes", "\(statistics.fileBytes)"),
                ("liveBytes", "\(statistics.liveBytes)"), ("freeBytes", "\(statistics.freeBytes)"),
                ("pinnedBytes", "\(statistics.pinnedBytes)"), ("retainedBytes", "\(statistics.retainedBytes)"),
                ("version", "\(statistics.version)"),
                ("activeVersions", "\(statistics.activeVersions)"), ("encrypted", "\(statistics.isEncrypted)"),
                ("logRecordsReplayed", "\(statistics.logRecordsReplayed)"),
                ("replicationSlots", "[" + slots.map { slot in
                    let oldest = slot.backlog.oldestCommitTime.map { ValueText.quoted(ValueText.iso8601($0)) } ?? "null"
                    let invalidation = slot.invalidation.map {
                        "{\"reason\":\(ValueText.quoted("\($0.reason)")),\"date\":\(ValueText.quoted(ValueText.iso8601($0.date)))}"
                    } ?? "null"
                    return "{\"name\":\(ValueText.quoted(slot.name)),\"id\":\(ValueText.quoted(String(slot.id, radix: 16))),"
                        + "\"confirmedVersion\":\(slot.confirmedVersion),\"confirmedCommit\":\(ValueText.quoted(String(slot.position.commitID, radix: 16))),"
                        + "\"pendingCommits\":\(slot.backlog.commits),\"oldestPendingCommitTime\":\(oldest),\"retainedBytes\":\(slot.retainedBytes),"
                        + "\"maximumRetainedBytes\":\(slot.limits.maximumRetainedBytes.map(String.init) ?? "null"),"
                        + "\"maximumLagSeconds\":\(slot.limits.maximumLag.map { "\(Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18)" } ?? "null"),"
                        + "\"invalidated\":\(invalidation)}"
                }.joined(separator: ",") + "]"),
                ("objects", "{" + classes.map { ValueText.quoted($0.0) + ":" + ($0.1.map(String.init) ?? "null") }.joined(separator: ",") + "}"),
            ]
            output.write("{" + fields.map { ValueText.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}\n")
        } else {
            output.write("file: \(file.path)\n\(statistics)\n")
            output.write("replication slots: \(slots.count)\n")
            for slot in slots {
                // The lag: how long ago the oldest commit the consumer has not confirmed was made.
                let lag = slot.backlog.oldestCommitTime.map { String(format: ", oldest %.1f s ago", max(0, Date.now.timeIntervalSince($0))) } ?? ""
                output.write("  \(slot.name): confirmed version \(slot.confirmedVersion), pending commits \(slot.backlog.commits)\(lag), retains \(slot.retainedBytes) bytes\n")
                if let invalidation = slot.invalidation {
                    let next = invalidation.reason == .resynchronizationRequested
                        ? "its consumer starts again from a snapshot on its next start"
                        : "its consumer must start again from a snapshot (`realm-inspect resync-slot FILE \(slot.name)` asks it to)"
                    output.write("    INVALIDATED: \(invalidation); \(next)\n")
                }
            }
            output.write("classes: \(classes.count)\n")
            for (name, count) in classes { output.write("  \(name): \(count.map { "\($0) objects" } ?? "embedded")\n") }
        }
        output.flush()
        return .success
    }
}
