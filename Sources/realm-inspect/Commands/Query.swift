import Foundation
import RealmActors

/// `realm-inspect query FILE CLASS [PREDICATE] [--sort KEYPATH] [--limit N] [--format F]`.
struct Query: InspectorCommand {
    static let spec = CommandSpec(
        name: "query", abstract: "Print the objects of a class, or those matching a predicate.",
        discussion: """
        The predicate is Realm's query language, as `filter(_:)` takes it. `--sort` takes key \
        paths separated by commas, each optionally followed by `:desc` ('age:desc,name'). In \
        `jsonl`, each line is one JSON object whose keys are the property names; a link is its \
        target's primary key, or the target nested if its class has none.
        """,
        positionals: [.init(name: "file", help: "The realm file."), .init(name: "class", help: "The class."),
                      .init(name: "predicate", help: "A Realm query-language predicate.", isOptional: true)],
        options: [.init(name: "sort", valueName: "keypath", help: "Sort by these key paths (comma-separated, `:desc` to descend)."),
                  .init(name: "limit", valueName: "n", help: "Print at most this many objects."),
                  .init(name: "format", valueName: "format", help: "How to print.",
                        choices: ObjectWriter.Format.allCases.map(\.rawValue), defaultValue: "table")])

    let file: RealmFile
    let className: String
    let predicate: String?
    let sort: [RealmActors.SortDescriptor]
    let limit: Int?
    let format: ObjectWriter.Format

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = try RealmFile(arguments)
        className = arguments[position: 1]!
        predicate = arguments[position: 2]
        limit = try arguments.count("limit")
        format = ObjectWriter.Format(rawValue: arguments.options["format"]!)!
        sort = try (arguments.options["sort"] ?? "").split(separator: ",").map { item throws(UsageError) in
            let parts = item.split(separator: ":", omittingEmptySubsequences: false)
            let keyPath = parts[0].trimmingCharacters(in: .whitespaces)
            guard !keyPath.isEmpty, parts.count <= 2, parts.count == 1 || ["asc", "desc"].contains(parts[1]) else {
                throw UsageError("The value '\(item)' is invalid for '--sort': expected KEYPATH or KEYPATH:desc")
            }
            return RealmActors.SortDescriptor(keyPath: keyPath, ascending: parts.count == 1 || parts[1] == "asc")
        }
    }

    func run() throws -> ExitStatus {
        let realm = try file.open()
        let objectSchema = try realm.objectSchema(named: className)
        var results = try Self.results(in: realm, className: className, predicate: predicate)
        if !sort.isEmpty { results = try results.sorted(validating: sort) }
        var writer = ObjectWriter(format: format, properties: objectSchema.properties, output: OutputBuffer())
        let total = limit.map { min($0, results.count) } ?? results.count
        var progress = Progress("\(className)", quiet: file.quiet)
        var written = 0
        for object in results {
            guard written < total else { break }
            writer.write(object)
            written += 1
            if written % 1024 == 0 { progress.update(written, of: total) }
        }
        progress.finish()
        writer.finish()
        return .success
    }

    /// The objects of `className` matching `predicate` (all of them without one); a class the
    /// realm lacks, an embedded class or a malformed predicate is an error, not a trap.
    static func results(in realm: Realm, className: String, predicate: String?) throws -> Results<DynamicObject> {
        let schema = try realm.objectSchema(named: className)
        if schema.isEmbedded {
            throw InspectionError("'\(className)' is an embedded class: its objects live inside the objects that link to them")
        }
        // Reads of objects cannot throw: a damaged page they met would trap. So the pages this
        // query can reach are checked first, and damage is an error naming the page.
        try realm.checkIntegrity(ofClasses: [className])
        let all = realm.dynamicObjects(className)
        guard let predicate else { return all }
        return try all.filter(validating: predicate)
    }
}
