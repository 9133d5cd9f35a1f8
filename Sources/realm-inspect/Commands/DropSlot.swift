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
        positionals: [.init(name: "file", help: "The realm file."), .init(name: "name", help: "The slot's name.")])

    let file: RealmFile
    let name: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = try RealmFile(arguments)
        name = arguments[position: 1]!
    }

    func run() throws -> ExitStatus {
        let realm = try file.open(writable: true)
        let before = realm.fileStatistics.retainedBytes
        guard try realm.replicationSlots.contains(where: { $0.name == name }) else {
            throw InspectionError("\(file.path): there is no replication slot named '\(name)'")
        }
        try realm.write { try realm.dropReplicationSlot(named: name) }
        let output = OutputBuffer()
        output.write("dropped slot '\(name)' of \(file.path); \(before) retained bytes freed for reuse\n")
        output.flush()
        return .success
    }
}
