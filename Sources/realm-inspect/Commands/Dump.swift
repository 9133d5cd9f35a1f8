import Foundation
import RealmActors

/// `realm-inspect dump FILE`: the schema and every object as JSON lines (see ``DumpFormat``).
struct Dump: InspectorCommand {
    static let spec = CommandSpec(
        name: "dump", abstract: "Write the schema and every object as JSON lines, which `load` reads back.",
        discussion: """
        The first line is the schema; each following line is one object (embedded objects \
        nested in their parents), with a "$class" key and one key per property. Links are the \
        target's primary key, or {"$id": n} for a class without one.
        """,
        positionals: [.init(name: "file", help: "The realm file.")],
        options: [.init(name: "format", valueName: "format", help: "The format.", choices: ["jsonl"], defaultValue: "jsonl")])

    let file: RealmFile

    init(_ arguments: ParsedArguments) throws(UsageError) { file = try RealmFile(arguments) }

    func run() throws -> ExitStatus {
        let realm = try file.open()
        // Reads of objects cannot throw: a damaged page they met would trap. The dump reads the
        // whole file anyway, so the whole file is checked first (at most doubling the reading),
        // and damage is an error naming the page and what it belongs to.
        _ = try realm.checkIntegrity()
        let schema = realm.schema
        let classes = schema.objectSchema.filter { !$0.isEmbedded }
        // `$id`s of the objects of classes without a primary key: their position in key order
        // (objects hash and compare by the stored object they read, whatever the accessor).
        var ordinals: [String: [ObjectBase: Int]] = [:]
        for objectSchema in classes where objectSchema.primaryKeyProperty == nil {
            var positions: [ObjectBase: Int] = [:]
            for (position, object) in realm.dynamicObjects(objectSchema.className).enumerated() {
                positions[object] = position
            }
            ordinals[objectSchema.className] = positions
        }
        let ordinal = { (object: ObjectBase) in ordinals[object.objectSchema.className]?[object] }
        let output = OutputBuffer()
        output.write(DumpFormat.header(schema) + "\n")
        let total = classes.reduce(0) { $0 + realm.dynamicObjects($1.className).count }
        var progress = Progress("dumping", quiet: file.quiet)
        var written = 0
        for objectSchema in classes {
            let hasKey = objectSchema.primaryKeyProperty != nil
            for (position, object) in realm.dynamicObjects(objectSchema.className).enumerated() {
                output.write(try DumpFormat.line(object, schema: objectSchema, ordinal: hasKey ? nil : position, links: DumpLinks(ordinal: ordinal)) + "\n")
                written += 1
                if written % 1024 == 0 { progress.update(written, of: total) }
            }
        }
        progress.finish()
        output.flush()
        return .success
    }
}
