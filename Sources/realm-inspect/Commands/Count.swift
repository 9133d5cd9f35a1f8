import Foundation
import RealmActors

/// `realm-inspect count FILE CLASS [PREDICATE]`.
struct Count: InspectorCommand {
    static let spec = CommandSpec(
        name: "count", abstract: "Count the objects of a class, or those matching a predicate.",
        discussion: "The predicate is Realm's query language, as `filter(_:)` takes it: 'age < 2 AND name BEGINSWITH \"R\"'.",
        positionals: [.init(name: "file", help: "The realm file."), .init(name: "class", help: "The class."),
                      .init(name: "predicate", help: "A Realm query-language predicate.", isOptional: true)])

    let file: RealmFile
    let className: String
    let predicate: String?

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = try RealmFile(arguments)
        className = arguments[position: 1]!
        predicate = arguments[position: 2]
    }

    func run() throws -> ExitStatus {
        let realm = try file.open()
        let results = try Query.results(in: realm, className: className, predicate: predicate)
        let output = OutputBuffer()
        output.write("\(results.count)\n")
        output.flush()
        return .success
    }
}
