import Foundation
import RealmActors

/// `realm-inspect recover FILE NEWFILE`: what can still be read from a damaged file, copied into
/// a new realm (SQLite's `.recover`), with a report per class of what was saved and what was lost.
struct Recover: InspectorCommand {
    static let spec = CommandSpec(
        name: "recover", abstract: "Copy every object that can still be read from a damaged file into a new realm.",
        discussion: """
        Creates NEWFILE (which must not exist) with FILE's schema and every object whose pages \
        pass their checks, and reports per class the objects saved, the objects lost (as the pages \
        above the damaged ones record) and the damaged pages. A damaged page loses \
        the objects it holds (and those below it); a link to a lost object is left out, an \
        embedded object is saved with its parent. Indexes are built anew. Exits with status 0 \
        when everything was saved, 1 when something was lost (or when the file's meta, catalog \
        or schema pages are damaged: then nothing can be read and NEWFILE is not created).
        """,
        positionals: [.init(name: "file", help: "The damaged realm file."), .init(name: "newfile", help: "The realm file to create.")],
        options: [.init(name: "format", valueName: "format", help: "How to print the report.", choices: ["text", "json"], defaultValue: "text")])

    /// What became of one class.
    struct ClassOutcome {
        let className: String
        var saved = 0
        /// Objects lost, as the pages above the damaged ones record.
        var lost = 0
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
        // What each class's table still holds: every page on the way to these objects passed its
        // checks, so reading them cannot trap; links and embedded objects are followed only into
        // these sets.
        // The whole file's check too, for the damage outside the tables (an index, which the new
        // file builds anew; the free space): reported, though it costs no object.
        var fileCheck: String?
        do { _ = try realm.checkIntegrity() } catch { fileCheck = Self.message(error) }
        var readable: [String: Realm.ReadableObjects] = [:]
        for objectSchema in realm.schema.objectSchema {
            readable[objectSchema.className] = try realm.readableObjects(ofClass: objectSchema.className)
        }
        let sets = readable.mapValues { Set($0.objects.map { $0 as ObjectBase }) }
        // `$id`s of the objects of classes without a primary key: their position among those saved.
        let positions = readable.mapValues { found in
            Dictionary(found.objects.enumerated().map { ($1 as ObjectBase, $0) }) { first, _ in first }
        }
        var embeddedSaved: [String: Set<ObjectBase>] = [:]  // a set: a list's filter and its writer both ask
        var droppedLinks = 0
        let links = DumpLinks(
            ordinal: { object in positions[object.objectSchema.className]?[object] },
            isReadable: { object in
                let className = object.objectSchema.className
                guard sets[className]?.contains(object) == true else {
                    droppedLinks += 1
                    return false
                }
                if object.objectSchema.isEmbedded { embeddedSaved[className, default: []].insert(object) }
                return true
            })
        let classes = realm.schema.objectSchema.filter { !$0.isEmbedded }
        var lines: [Data] = []
        for objectSchema in classes {
            let hasKey = objectSchema.primaryKeyProperty != nil
            for (position, object) in readable[objectSchema.className]!.objects.enumerated() {
                lines.append(Data(try DumpFormat.line(object, schema: objectSchema, ordinal: hasKey ? nil : position, links: links).utf8))
            }
        }
        do {
            try write(lines, schema: realm.schema)
        } catch {
            _ = try? Realm.deleteFiles(for: output.configuration(writable: true))
            throw error
        }
        progress.finish()
        let outcomes = realm.schema.objectSchema.map { objectSchema in
            let found = readable[objectSchema.className]!
            var outcome = ClassOutcome(className: objectSchema.className, saved: found.objects.count, lost: found.lost,
                                       damage: found.damage.isEmpty ? nil : found.damage.joined(separator: "; "))
            if objectSchema.isEmbedded {
                // An embedded object is saved with its parent: one whose parent was lost is lost too.
                let saved = embeddedSaved[objectSchema.className]?.count ?? 0
                outcome.lost = found.lost + found.objects.count - saved
                outcome.saved = saved
            }
            return outcome
        }
        report(outcomes, droppedLinks: droppedLinks, fileCheck: fileCheck)
        let damaged = outcomes.filter { $0.damage != nil || $0.lost != 0 }
        guard damaged.isEmpty, droppedLinks == 0 else {
            // The diagnosis on standard error too, as every command gives it when it exits with 1.
            let first = outcomes.compactMap(\.damage).first.map { ": \($0)" } ?? ""
            Inspector.printError("Error: \(file.path) is damaged; objects of \(damaged.map { "'\($0.className)'" }.joined(separator: ", ")) were lost\(first)")
            return .problemsFound
        }
        if let fileCheck { Inspector.printError("Note: every object was saved, but \(file.path) is damaged: \(fileCheck)") }
        return .success
    }

    /// Writes NEWFILE: the whole schema, and the objects of `lines` (the dump's format, so links
    /// and embedded objects are carried as `dump` and `load` carry them).
    private func write(_ lines: [Data], schema: Schema) throws {
        let schemas = try DumpReader.schema(fromHeader: Data(DumpFormat.header(schema).utf8))
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
    }

    private func report(_ outcomes: [ClassOutcome], droppedLinks: Int, fileCheck: String?) {
        let buffer = OutputBuffer()
        if json {
            let classes = outcomes.map { outcome in
                "{\"class\":\(ValueText.quoted(outcome.className)),\"saved\":\(outcome.saved),"
                    + "\"lost\":\(outcome.lost),\"damage\":\(outcome.damage.map(ValueText.quoted) ?? "null")}"
            }
            let complete = outcomes.allSatisfy { $0.damage == nil && $0.lost == 0 }
            buffer.write("{\"file\":\(ValueText.quoted(file.path)),\"newFile\":\(ValueText.quoted(output.path)),"
                         + "\"complete\":\(complete && droppedLinks == 0),\"droppedLinks\":\(droppedLinks),"
                         + "\"fileCheck\":\(fileCheck.map(ValueText.quoted) ?? "null"),\"classes\":[\(classes.joined(separator: ","))]}\n")
        } else {
            buffer.write("recovered \(file.path) into \(output.path)\n")
            for outcome in outcomes {
                buffer.write("  \(outcome.className): \(outcome.saved) saved, \(outcome.lost) lost\n")
                if let damage = outcome.damage { buffer.write("    damage: \(damage)\n") }
            }
            if droppedLinks > 0 { buffer.write("  links to lost objects, left out: \(droppedLinks)\n") }
            buffer.write("file check: \(fileCheck ?? "ok")\n")
        }
        buffer.flush()
    }

    static func message(_ error: any Error) -> String {
        (error as? Realm.Error)?.localizedDescription ?? "\(error)"
    }
}
