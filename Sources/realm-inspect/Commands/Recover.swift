import Foundation
import RealmActors

/// `realm-inspect recover FILE NEWFILE`: what can still be read from a damaged file, copied into
/// a new realm (SQLite's `.recover`), with a report per class of what was saved and what was lost.
struct Recover: InspectorCommand {
    static let spec = CommandSpec(
        name: "recover", abstract: "Copy every class that can still be read from a damaged file into a new realm.",
        discussion: """
        Creates NEWFILE (which must not exist) with FILE's schema and the objects of every class \
        whose pages are intact — its table, its indexes, the embedded objects it holds and the \
        classes it links to — and reports per class the objects saved, the objects lost \
        ("unknown" when the damaged table cannot be counted) and the damage found. A class is \
        saved whole or not at all: a damaged page loses its class and the classes that link to \
        it. Exits with status 0 when everything was saved, 1 when something was lost (or the \
        file's meta, catalog or schema pages are damaged, when nothing can be read).
        """,
        positionals: [.init(name: "file", help: "The damaged realm file."), .init(name: "newfile", help: "The realm file to create.")],
        options: [.init(name: "format", valueName: "format", help: "How to print the report.", choices: ["text", "json"], defaultValue: "text")])

    /// What became of one class.
    struct ClassOutcome {
        let className: String
        var saved = 0
        /// Objects lost; nil when the class's own table is damaged and cannot be counted.
        var lost: Int? = 0
        /// The damage that cost the class its objects (the pages and what they belong to).
        var damage: String?
    }

    let file: RealmFile
    let output: RealmFile
    let json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = try RealmFile(arguments)
        output = try RealmFile(arguments, pathAt: 1)
        json = arguments.options["format"] == "json"
    }

    func run() throws -> ExitStatus {
        guard !FileManager.default.fileExists(atPath: output.path) else {
            throw InspectionError("\(output.path) exists already: recover creates a new realm")
        }
        // A damaged meta, catalog or schema page makes the open throw: nothing can be read then.
        let realm = try file.open()
        var progress = Progress("recovering \(file.path)", quiet: file.quiet)
        progress.update(0)
        let classes = realm.schema.objectSchema.filter { !$0.isEmbedded }
        var outcomes: [ClassOutcome] = []
        var readable: [ObjectSchema] = []
        for objectSchema in classes {
            var outcome = ClassOutcome(className: objectSchema.className)
            do {
                // Every page reading these objects can reach: then reading them cannot trap.
                try realm.checkIntegrity(ofClasses: [objectSchema.className])
                readable.append(objectSchema)
            } catch {
                outcome.damage = Self.message(error)
                // Its own table intact (a class it links to is damaged): its objects can be counted.
                let ownIsIntact = (try? realm.checkIntegrity(ofClasses: [objectSchema.className], followingLinks: false)) != nil
                outcome.lost = ownIsIntact ? realm.dynamicObjects(objectSchema.className).count : nil
            }
            outcomes.append(outcome)
        }
        let saved: [String: Int]
        do {
            saved = try copy(readable, from: realm)
        } catch {
            _ = try? Realm.deleteFiles(for: output.configuration(writable: true))
            throw error
        }
        for index in outcomes.indices { outcomes[index].saved = saved[outcomes[index].className] ?? 0 }
        progress.finish()
        report(outcomes)
        let damaged = outcomes.filter { $0.damage != nil }
        guard damaged.isEmpty else {
            // The diagnosis on standard error too, as every command gives it when it exits with 1.
            Inspector.printError("Error: \(file.path) is damaged: the objects of \(damaged.map { "'\($0.className)'" }.joined(separator: ", ")) "
                                 + "were lost; \(damaged[0].damage!)")
            return .problemsFound
        }
        return .success
    }

    /// Writes NEWFILE: the whole schema, and the objects of `classes` (whose pages were all
    /// checked), through the dump's format so links and embedded objects are carried as `dump`
    /// and `load` carry them. Returns the objects saved per class.
    private func copy(_ classes: [ObjectSchema], from realm: Realm) throws -> [String: Int] {
        // `$id`s of objects of classes without a primary key: their position in key order.
        var ordinals: [String: [ObjectBase: Int]] = [:]
        for objectSchema in classes where objectSchema.primaryKeyProperty == nil {
            var positions: [ObjectBase: Int] = [:]
            for (position, object) in realm.dynamicObjects(objectSchema.className).enumerated() { positions[object] = position }
            ordinals[objectSchema.className] = positions
        }
        let ordinal = { (object: ObjectBase) in ordinals[object.objectSchema.className]?[object] }
        var lines: [Data] = []
        var saved: [String: Int] = [:]
        for objectSchema in classes {
            let hasKey = objectSchema.primaryKeyProperty != nil
            for (position, object) in realm.dynamicObjects(objectSchema.className).enumerated() {
                lines.append(Data(try DumpFormat.line(object, schema: objectSchema, ordinal: hasKey ? nil : position, ordinals: ordinal).utf8))
                saved[objectSchema.className, default: 0] += 1
            }
        }
        let schemas = try DumpReader.schema(fromHeader: Data(DumpFormat.header(realm.schema).utf8))
        let target = try Realm(configuration: output.configuration(writable: true))
        var reader = DumpReader(realm: target, schemas: schemas)
        target.beginWrite()
        do {
            try target.addObjectSchemas(schemas)
            // As `load`: every object first, so any of them can be linked to; then their properties.
            for (number, line) in lines.enumerated() { try reader.create(try DumpReader.object(line, at: number + 2), at: number + 2) }
            for (number, line) in lines.enumerated() { try reader.fill(try DumpReader.object(line, at: number + 2), at: number + 2) }
            try target.commitWrite()
        } catch {
            target.cancelWrite()
            throw error
        }
        return saved
    }

    private func report(_ outcomes: [ClassOutcome]) {
        let buffer = OutputBuffer()
        if json {
            let classes = outcomes.map { outcome in
                "{\"class\":\(ValueText.quoted(outcome.className)),\"saved\":\(outcome.saved),"
                    + "\"lost\":\(outcome.lost.map(String.init) ?? "null"),\"damage\":\(outcome.damage.map(ValueText.quoted) ?? "null")}"
            }
            let complete = outcomes.allSatisfy { $0.damage == nil }
            buffer.write("{\"file\":\(ValueText.quoted(file.path)),\"newFile\":\(ValueText.quoted(output.path)),"
                         + "\"complete\":\(complete),\"classes\":[\(classes.joined(separator: ","))]}\n")
        } else {
            buffer.write("recovered \(file.path) into \(output.path)\n")
            for outcome in outcomes {
                buffer.write("  \(outcome.className): \(outcome.saved) saved, \(outcome.lost.map(String.init) ?? "unknown") lost\n")
                if let damage = outcome.damage { buffer.write("    damage: \(damage)\n") }
            }
        }
        buffer.flush()
    }

    static func message(_ error: any Error) -> String {
        (error as? Realm.Error)?.localizedDescription ?? "\(error)"
    }
}
