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
        the objects it holds (and those below it); a link to a lost object is left out (nil in \
        a link, a map or a mixed value) and counted, an embedded object is saved with its \
        parent. Indexes are built anew; objects are copied a few thousand per transaction. An \
        encrypted FILE needs its key, and NEWFILE is encrypted with it. Exits with status 0 \
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
        // The whole file's check, for the damage outside the tables (an index, which the new
        // file builds anew; the free space): reported, though it costs no object.
        var fileCheck: String?
        do { _ = try realm.checkIntegrity() } catch { fileCheck = Self.message(error) }
        var readable: [String: Realm.ReadableObjects] = [:]
        for objectSchema in realm.schema.objectSchema {
            readable[objectSchema.className] = try realm.readableObjects(ofClass: objectSchema.className)
        }
        let classes = realm.schema.objectSchema.filter { !$0.isEmbedded }
        var copy = Copying(readable: readable)
        do {
            let target = try Realm(configuration: output.configuration(writable: true))
            // A mixed link is read without looking up its object, which may lie in a damaged
            // page: like every link, it is followed only into the readable objects.
            try realm.withMixedLinksUnchecked {
                try copy.write(classes, schema: realm.schema, into: target, batchSize: Self.batchSize) { progress.update($0) }
            }
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
                let saved = copy.embeddedSaved[objectSchema.className] ?? 0
                outcome.lost = found.lost + found.objects.count - saved
                outcome.saved = saved
            }
            return outcome
        }
        let droppedLinks = copy.droppedLinks
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

    /// Objects per write transaction of the new file: what the copy holds in memory at a time
    /// (their accessors, dump lines and the transaction's pages), whatever the file's size.
    /// Measured on a 230 MB file (380,000 objects, two links each; debug build, 2026-11-28):
    /// peak anonymous memory 12.5 MB (734 MB when every object was held before one write), max
    /// RSS 401 MB (983 MB) — the rest is the two files' mapped pages, which the kernel reclaims.
    static let batchSize = 2_000

    /// The copy into the new realm, in bounded batches: first every object (its primary key
    /// only), class by class, so that any object can be linked to; then their properties, as
    /// `load` does — but `batchSize` objects per write transaction, each batch's dump lines
    /// made, read and dropped in turn, so memory does not grow with the file.
    struct Copying {
        /// What each class's table still holds: every page on the way to these objects passed
        /// its checks, so reading them cannot trap; links and embedded objects are followed
        /// only into these objects.
        let readable: [String: Realm.ReadableObjects]
        /// Links (in a property, a list, a map or a mixed value) to objects that were not readable.
        private(set) var droppedLinks = 0
        /// Embedded objects written, by class.
        private(set) var embeddedSaved: [String: Int] = [:]

        init(readable: [String: Realm.ReadableObjects]) { self.readable = readable }

        mutating func write(_ classes: [ObjectSchema], schema: Schema, into target: Realm, batchSize: Int,
                            progress: (Int) -> Void) throws {
            let schemas = try DumpReader.schema(fromHeader: Data(DumpFormat.header(schema).utf8))
            // The new file numbers the objects of a class without a primary key in the order
            // they are created, which is the order of `readable` — their dump `$id`s.
            var reader = DumpReader(realm: target, schemas: schemas, numberedInFile: true)
            let readable = self.readable
            try Self.transaction(target) { try target.addObjectSchemas(schemas) }
            var done = 0
            // Pass 1: every object, its primary key only.
            for objectSchema in classes {
                let objects = readable[objectSchema.className]!.objects
                for batch in stride(from: 0, to: objects.count, by: batchSize) {
                    try Self.transaction(target) {
                        for object in objects[batch..<min(batch + batchSize, objects.count)] {
                            reader.createObject(of: objectSchema, primaryKey: objectSchema.primaryKeyProperty.flatMap { object[$0.name] })
                        }
                    }
                }
            }
            // Pass 2: their properties, from the object's dump line (links to lost objects left out).
            var line = 0
            for objectSchema in classes {
                let hasKey = objectSchema.primaryKeyProperty != nil
                let objects = readable[objectSchema.className]!.objects
                for batch in stride(from: 0, to: objects.count, by: batchSize) {
                    // A set per batch: a list's filter and its writer both ask about an embedded
                    // object, which belongs to one parent only, so to one batch.
                    var embedded: [String: Set<ObjectBase>] = [:]
                    var dropped = 0
                    let links = DumpLinks(
                        ordinal: { object in readable[object.objectSchema.className]?.position(of: object) },
                        isReadable: { object in
                            let className = object.objectSchema.className
                            guard readable[className]?.contains(object) == true else {
                                dropped += 1
                                return false
                            }
                            if object.objectSchema.isEmbedded { embedded[className, default: []].insert(object) }
                            return true
                        })
                    try Self.transaction(target) {
                        for position in batch..<min(batch + batchSize, objects.count) {
                            line += 1
                            let text = try DumpFormat.line(objects[position], schema: objectSchema, ordinal: hasKey ? nil : position, links: links)
                            try reader.fill(try DumpReader.object(Data(text.utf8), at: line), at: line)
                        }
                    }
                    droppedLinks += dropped
                    for (className, saved) in embedded { embeddedSaved[className, default: 0] += saved.count }
                    done += min(batchSize, objects.count - batch)
                    progress(done)
                }
            }
        }

        /// Runs `body` in a write transaction of `realm`, committed, or cancelled if it throws.
        static func transaction(_ realm: Realm, _ body: () throws -> Void) throws {
            realm.beginWrite()
            do {
                try body()
                try realm.commitWrite()
            } catch {
                realm.cancelWrite()
                throw error
            }
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
