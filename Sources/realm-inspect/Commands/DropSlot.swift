import Foundation
import RealmActors

/// `realm-inspect drop-slot FILE NAME`: drop a replication slot, freeing the versions it retains.
struct DropSlot: InspectorCommand {
    static let spec = CommandSpec(
        name: "drop-slot", abstract: "Drop a replication slot, freeing the versions only it retains.",
        discussion: """
        A slot whose consumer is gone keeps every later version's replaced pages in the file \
        (`info` shows the slots and the retained bytes). Dropping it frees them for reuse; a \
        consumer that comes back later has to start over from a new slot.
        """,
        positionals: SlotArguments.positionals)

    let slot: SlotArguments

    init(_ arguments: ParsedArguments) throws(UsageError) { slot = try SlotArguments(arguments) }

    func run() throws -> ExitStatus {
        let (realm, _) = try slot.open()
        let before = realm.fileStatistics.retainedBytes
        try realm.write { try realm.dropReplicationSlot(named: slot.name) }
        let output = OutputBuffer()
        output.write("dropped slot '\(slot.name)' of \(slot.file.path); \(before) retained bytes freed for reuse\n")
        output.flush()
        return .success
    }
}
