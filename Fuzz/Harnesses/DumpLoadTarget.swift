import Foundation
import RealmActors
import RealmInspector

/// `load`: a `realm-inspect dump` file, read by the inspector's loader (`Load`) into a new
/// in-memory realm: the schema line, then objects, links and values of every type, checked
/// against the schema.
///
/// What must hold: the dump loads, or the loader throws naming the line; never a trap in the
/// dynamic API underneath (`dynamicCreate`, the setters, `addObjectSchemas`).
final class DumpLoadTarget: FuzzTarget {
    private let scratch = ScratchDirectory("load")
    private var runs = 0

    func run(_ input: Data) -> String {
        let path = scratch.write(input, to: "fuzz.dump")
        runs += 1
        var configuration = Realm.Configuration(inMemoryIdentifier: "realm-fuzz-load-\(runs)")
        configuration.objectTypes = nil
        do {
            return "loaded \(try Load.load(dumpAt: path, into: configuration, quiet: true)) objects"
        } catch {
            return "refused: \(error)"
        }
    }
}
