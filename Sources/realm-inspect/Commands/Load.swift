import Foundation
package import RealmActors

/// `realm-inspect load DUMP NEWFILE`: a new realm from a dump (see ``DumpFormat``).
package struct Load: InspectorCommand {
    static let spec = CommandSpec(
        name: "load", abstract: "Create a new realm from a dump written by `dump`.",
        discussion: """
        Creates NEWFILE (which must not exist) with the dump's schema and objects, in one write \
        transaction: a dump with a problem (named with its line number) leaves no file.
        """,
        positionals: [.init(name: "dump", help: "The dump (JSON lines)."), .init(name: "newfile", help: "The realm file to create.")])

    let dumpPath: String
    let file: RealmFile

    init(_ arguments: ParsedArguments) throws(UsageError) {
        dumpPath = arguments[position: 0]!
        file = try RealmFile(arguments, pathAt: 1)
    }

    func run() throws -> ExitStatus {
        guard !FileManager.default.fileExists(atPath: file.path) else { throw InspectionError("\(file.path) exists already: load creates a new realm") }
        do {
            let count = try load()
            let output = OutputBuffer()
            output.write("loaded \(count) objects into \(file.path)\n")
            output.flush()
            return .success
        } catch {
            _ = try? Realm.deleteFiles(for: file.configuration(writable: true))
            throw error
        }
    }

    private func load() throws -> Int {
        try Self.load(dumpAt: dumpPath, into: file.configuration(writable: true), quiet: file.quiet)
    }

    /// Reads the dump at `dumpPath` into the new realm `configuration` opens, in one write
    /// transaction, and returns the number of objects; a dump with a problem throws and leaves
    /// the realm as it was. The fuzz harness `load` calls it with in-memory realms.
    package static func load(dumpAt dumpPath: String, into configuration: Realm.Configuration, quiet: Bool) throws -> Int {
        var lines = try LineReader(path: dumpPath)
        guard let headerLine = try lines.next() else { throw InspectionError("\(dumpPath) is empty") }
        let schemas = try DumpReader.schema(fromHeader: headerLine)
        let realm = try Realm(configuration: configuration)
        var reader = DumpReader(realm: realm, schemas: schemas)
        var progress = Progress("loading", quiet: quiet)
        realm.beginWrite()
        do {
            try realm.addObjectSchemas(schemas)
            // Pass 1: every object, so that any of them can be linked to.
            while let line = try lines.next() {
                guard !line.isEmpty else { continue }
                try reader.create(try DumpReader.object(line, at: lines.lineNumber), at: lines.lineNumber)
                if lines.lineNumber % 1024 == 0 { progress.update(lines.lineNumber) }
            }
            // Pass 2: their properties.
            lines = try LineReader(path: dumpPath)
            _ = try lines.next()
            while let line = try lines.next() {
                guard !line.isEmpty else { continue }
                try reader.fill(try DumpReader.object(line, at: lines.lineNumber), at: lines.lineNumber)
                if lines.lineNumber % 1024 == 0 { progress.update(lines.lineNumber) }
            }
            try realm.commitWrite()
        } catch {
            realm.cancelWrite()
            throw error
        }
        progress.finish()
        return reader.created
    }
}

/// Turns a dump's JSON back into a schema and objects (the inverse of ``DumpFormat``): every
/// value checked against its property's type, so a dump edited by hand or truncated gives a
/// message naming the line and property, never a trap in `dynamicCreate` or a setter.
struct DumpReader {
    let realm: Realm
    let schemas: [String: ObjectSchema]
    /// Objects of classes without a primary key, by `$id`.
    private var numbered: [String: [DynamicObject]] = [:]
    /// Whether the objects of a class without a primary key are found in the file by position
    /// (its `$id`) instead of in `numbered`: true when the realm holds them all, created in
    /// `$id` order and nothing else (`recover`, which writes in batches and must not hold them).
    private let numberedInFile: Bool
    private(set) var created = 0

    init(realm: Realm, schemas: [ObjectSchema], numberedInFile: Bool = false) {
        self.realm = realm
        self.schemas = Dictionary(schemas.map { ($0.className, $0) }) { first, _ in first }
        self.numberedInFile = numberedInFile
    }

    // MARK: Lines

    static func object(_ line: Data, at lineNumber: Int) throws -> [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else {
            throw InspectionError("line \(lineNumber): not a JSON object")
        }
        return object
    }

    /// The classes a header line describes.
    static func schema(fromHeader line: Data) throws -> [ObjectSchema] {
        let header = try object(line, at: 1)
        guard header["realmDump"] as? Int == DumpFormat.version, let classes = header["schema"] as? [[String: Any]] else {
            throw InspectionError("line 1: not a realm dump header ({\"realmDump\":\(DumpFormat.version),\"schema\":[…]})")
        }
        return try classes.map { description in
            guard let className = description["className"] as? String,
                  let properties = description["properties"] as? [[String: Any]] else {
                throw InspectionError("line 1: a class without a className or properties")
            }
            let stored = try properties.map { property -> Property in
                guard let name = property["name"] as? String, let typeName = property["type"] as? String,
                      let type = SchemaCommand.type(named: typeName) else {
                    throw InspectionError("line 1: a property of \(className) has no name or an unknown type")
                }
                let collection = property["collection"] as? String
                return Property(name: name, type: type, objectClassName: property["objectClassName"] as? String,
                                isOptional: property["optional"] as? Bool ?? false, isIndexed: property["indexed"] as? Bool ?? false,
                                isPrimary: property["primary"] as? Bool ?? false,
                                isArray: collection == "list", isSet: collection == "set", isMap: collection == "map")
            }
            let computed = ((description["computedProperties"] as? [[String: Any]]) ?? []).map { property in
                Property(name: property["name"] as? String ?? "", type: .linkingObjects,
                         objectClassName: property["objectClassName"] as? String,
                         linkOriginPropertyName: property["originProperty"] as? String)
            }
            return ObjectSchema(className: className, properties: stored, isEmbedded: description["embedded"] as? Bool ?? false,
                                computedProperties: computed)
        }
    }

    /// The class of an object line.
    func schema(of object: [String: Any], at line: Int) throws -> ObjectSchema {
        guard let className = object["$class"] as? String else { throw InspectionError("line \(line): no \"$class\"") }
        guard let schema = schemas[className], !schema.isEmbedded else {
            throw InspectionError("line \(line): '\(className)' is not a top-level class of the dump's schema")
        }
        return schema
    }

    // MARK: Passes

    /// Pass 1: creates the object (its primary key only).
    mutating func create(_ object: [String: Any], at line: Int) throws {
        let schema = try schema(of: object, at: line)
        if let key = schema.primaryKeyProperty {
            guard let value = object[key.name] else { throw InspectionError("line \(line): no primary key '\(key.name)'") }
            let decoded = try self.value(value, key, at: "line \(line), \(schema.className).\(key.name)")
            if realm.dynamicObject(ofType: schema.className, forPrimaryKey: decoded ?? NSNull()) != nil {
                throw InspectionError("line \(line): a second \(schema.className) with primary key \(decoded.map { "\($0)" } ?? "nil")")
            }
            _ = realm.dynamicCreate(schema.className, value: [key.name: decoded ?? NSNull()])
        } else {
            let expected = numberedCount(schema.className)
            guard object["$id"] as? Int == expected else {
                throw InspectionError("line \(line): expected \"$id\": \(expected) (objects without a primary key are numbered in order)")
            }
            createObject(of: schema, primaryKey: nil)
            return
        }
        created += 1
    }

    /// Pass 1 without a dump line: creates an object of `schema`'s class with its primary key
    /// `primaryKey` (a value the class's key takes, nil for a null key; ignored for a class
    /// without one, whose object gets the next `$id`).
    mutating func createObject(of schema: ObjectSchema, primaryKey: Any?) {
        if let key = schema.primaryKeyProperty {
            _ = realm.dynamicCreate(schema.className, value: [key.name: primaryKey ?? NSNull()])
        } else if numberedInFile {
            _ = realm.dynamicCreate(schema.className)
        } else {
            numbered[schema.className, default: []].append(realm.dynamicCreate(schema.className))
        }
        created += 1
    }

    /// How many objects of the class (without a primary key) were created: the next `$id`.
    private func numberedCount(_ className: String) -> Int {
        numberedInFile ? realm.dynamicObjects(className).count : numbered[className]?.count ?? 0
    }

    /// The object of the class (without a primary key) with `$id` `id`, if there is one.
    private func numberedObject(_ className: String, _ id: Int) -> DynamicObject? {
        guard id >= 0, id < numberedCount(className) else { return nil }
        return numberedInFile ? realm.dynamicObjects(className)[id] : numbered[className]![id]
    }

    /// Pass 2: sets the object's properties.
    func fill(_ object: [String: Any], at line: Int) throws {
        let schema = try schema(of: object, at: line)
        let target: DynamicObject
        if let key = schema.primaryKeyProperty {
            let decoded = try value(object[key.name]!, key, at: "line \(line)")
            target = realm.dynamicObject(ofType: schema.className, forPrimaryKey: decoded ?? NSNull())!
        } else {
            target = numberedObject(schema.className, object["$id"] as! Int)!
        }
        for (name, json) in object where !name.hasPrefix("$") {
            guard let property = schema[name] else { throw InspectionError("line \(line): \(schema.className) has no property '\(name)'") }
            if property.isPrimary { continue }
            target[name] = try value(json, property, at: "line \(line), \(schema.className).\(name)")
        }
    }

    // MARK: Values

    /// A property's value (its collection, or one value) from JSON, as the dynamic setter takes it.
    func value(_ json: Any, _ property: Property, at location: String) throws -> Any? {
        if property.isMap {
            guard let map = json as? [String: Any] else { throw InspectionError("\(location): expected an object (a map)") }
            return try map.mapValues { try single($0, property, at: location) }
        }
        if property.isArray || property.isSet {
            guard let array = json as? [Any] else { throw InspectionError("\(location): expected an array") }
            return try array.map { try single($0, property, at: location) }
        }
        return try single(json, property, at: location)
    }

    /// One value of the property's type (an element, for a collection); nil for JSON null where
    /// the property is optional.
    func single(_ json: Any, _ property: Property, at location: String) throws -> Any? {
        func mismatch(_ expected: String) -> InspectionError { InspectionError("\(location): expected \(expected), found \(Self.describe(json))") }
        if json is NSNull {
            guard property.isOptional || property.type == .any else { throw mismatch("a value (the property is not optional)") }
            return nil
        }
        switch property.type {
        case .int:
            guard let int = Self.integer(json) else { throw mismatch("an integer") }
            return int
        case .bool:
            guard Self.isBoolean(json), let bool = json as? Bool else { throw mismatch("true or false") }
            return bool
        case .double, .float:
            guard let double = Self.double(json) else { throw mismatch("a number") }
            return property.type == .float ? Float(double) as Any : double
        case .string:
            guard let string = json as? String else { throw mismatch("a string") }
            return string
        case .data:
            guard let text = json as? String, let data = Data(base64Encoded: text) else { throw mismatch("base64 data") }
            return data
        case .date:
            guard let date = Self.date(json) else { throw mismatch("an ISO 8601 date or {\"$date\": seconds}") }
            return date
        case .objectId:
            guard let text = json as? String, let id = try? ObjectId(string: text) else { throw mismatch("an object id (24 hex digits)") }
            return id
        case .decimal128:
            guard let text = json as? String, let decimal = try? Decimal128(string: text) else { throw mismatch("a decimal") }
            return decimal
        case .UUID:
            guard let text = json as? String, let uuid = UUID(uuidString: text) else { throw mismatch("a UUID") }
            return uuid
        case .object, .linkingObjects:
            return try link(json, to: property.objectClassName ?? "", at: location)
        case .any:
            return try mixed(json, at: location)
        }
    }

    /// A link's target (an existing object), or an embedded object's values.
    func link(_ json: Any, to className: String, at location: String) throws -> Any {
        guard let target = schemas[className] ?? realm.schema[className] else { throw InspectionError("\(location): no class '\(className)'") }
        if target.isEmbedded {
            guard let values = json as? [String: Any] else { throw InspectionError("\(location): expected an embedded \(className) object") }
            var decoded: [String: Any] = [:]
            for (name, value) in values {
                guard let property = target[name] else { throw InspectionError("\(location): \(className) has no property '\(name)'") }
                decoded[name] = try self.value(value, property, at: "\(location).\(name)") ?? NSNull()
            }
            return decoded
        }
        if let key = target.primaryKeyProperty {
            let decoded = try single(json, key, at: location)
            guard let object = realm.dynamicObject(ofType: className, forPrimaryKey: decoded ?? NSNull()) else {
                throw InspectionError("\(location): no \(className) with primary key \(Self.describe(json))")
            }
            return object
        }
        guard let id = (json as? [String: Any])?["$id"] as? Int else { throw InspectionError("\(location): expected {\"$id\": n} for a \(className)") }
        guard let object = numberedObject(className, id) else {
            throw InspectionError("\(location): no \(className) with \"$id\" \(id)")
        }
        return object
    }

    /// An `AnyRealmValue` from its dump form.
    func mixed(_ json: Any, at location: String) throws -> AnyRealmValue {
        if json is NSNull { return .none }
        if let bool = json as? Bool, Self.isBoolean(json) { return .bool(bool) }
        if let int = Self.integer(json) { return .int(int) }
        if let string = json as? String { return .string(string) }
        if let double = Self.double(json) { return .double(double) }
        guard let tagged = json as? [String: Any], let type = tagged["$type"] as? String, let value = tagged["value"] else {
            throw InspectionError("\(location): expected a mixed value (plain, or {\"$type\": …, \"value\": …}), found \(Self.describe(json))")
        }
        func typed(_ type: PropertyType) throws -> Any? {
            try single(value, Property(name: "", type: type), at: location)
        }
        switch type {
        case "double": return .double(try typed(.double) as! Double)
        case "float": return .float(try typed(.float) as! Float)
        case "date": return .date(try typed(.date) as! Date)
        case "data": return .data(try typed(.data) as! Data)
        case "uuid": return .uuid(try typed(.UUID) as! UUID)
        case "objectId": return .objectId(try typed(.objectId) as! ObjectId)
        case "decimal128": return .decimal128(try typed(.decimal128) as! Decimal128)
        case "object":
            guard let className = tagged["class"] as? String, let object = try link(value, to: className, at: location) as? Object else {
                throw InspectionError("\(location): a mixed link needs a \"class\" with objects")
            }
            return .object(object)
        case "list":
            guard let array = value as? [Any] else { throw InspectionError("\(location): a mixed list needs an array") }
            return .fromArray(try array.map { try mixed($0, at: location) })
        case "dictionary":
            guard let map = value as? [String: Any] else { throw InspectionError("\(location): a mixed dictionary needs an object") }
            return .fromDictionary(try map.mapValues { try mixed($0, at: location) })
        default: throw InspectionError("\(location): unknown mixed type '\(type)'")
        }
    }

    // MARK: JSON numbers

    /// Whether a parsed JSON value was `true`/`false` (JSONSerialization returns booleans and
    /// numbers as NSNumber on Linux; only the boolean ones report the `c` type).
    static func isBoolean(_ json: Any) -> Bool {
        guard let number = json as? NSNumber else { return false }
        return String(cString: number.objCType) == "c" || type(of: json) == Bool.self
    }

    static func integer(_ json: Any) -> Int? {
        guard !isBoolean(json), let number = json as? NSNumber else { return nil }
        let type = String(cString: number.objCType)
        guard type != "d", type != "f" else {
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 9.0e15 ? Int(double) : nil
        }
        return number.intValue
    }

    static func double(_ json: Any) -> Double? {
        if let text = json as? String {
            switch text {
            case "NaN": return .nan
            case "Infinity": return .infinity
            case "-Infinity": return -.infinity
            default: return nil
            }
        }
        guard !isBoolean(json), let number = json as? NSNumber else { return nil }
        return number.doubleValue
    }

    static func date(_ json: Any) -> Date? {
        if let text = json as? String { return DumpFormat.parseDate(text) }
        if let seconds = (json as? [String: Any])?["$date"], let value = double(seconds) { return Date(timeIntervalSince1970: value) }
        return nil
    }

    static func describe(_ json: Any) -> String {
        let text = (try? String(decoding: JSONSerialization.data(withJSONObject: [json], options: [.fragmentsAllowed]), as: UTF8.self)) ?? "\(json)"
        let inner = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        return inner.count > 60 ? String(inner.prefix(57)) + "…" : inner
    }
}
