import Foundation
import RealmActors

/// What the commands on one replication slot (`drop-slot`, `resync-slot`) take: the realm file
/// and the slot's name.
struct SlotArguments {
    static let positionals: [CommandSpec.Positional] = [.init(name: "file", help: "The realm file."), .init(name: "name", help: "The slot's name.")]

    let file: RealmFile
    let name: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = try RealmFile(arguments)
        name = arguments[position: 1]!
    }

    /// The file opened for writing, and its slot of that name; a missing slot is an
    /// ``InspectionError``.
    func open() throws -> (Realm, Realm.ReplicationSlot) {
        let realm = try file.open(writable: true)
        guard let slot = try realm.replicationSlots.first(where: { $0.name == name }) else {
            throw InspectionError("\(file.path): there is no replication slot named '\(name)'")
        }
        return (realm, slot)
    }
}
