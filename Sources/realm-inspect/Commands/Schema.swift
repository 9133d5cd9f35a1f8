import Foundation
import RealmActors

/// `realm-inspect schema FILE`: the classes and properties the file stores.
struct SchemaCommand: InspectorCommand {
    static let spec = CommandSpec(
        name: "schema", abstract: "Print the file's schema: as text, as JSON, or as Swift model classes.",
        discussion: "`--format swift` prints model classes that open the file as it is (paste them into a project).",
        positionals: [.init(name: "file", help: "The realm file.")],
        options: [.init(name: "format", valueName: "format", help: "How to print.", choices: ["text", "json", "swift"], defaultValue: "text")])

    let file: RealmFile
    let format: String

    init(_ arguments: ParsedArguments) throws(UsageError) {
        file = try RealmFile(arguments)
        format = arguments.options["format"]!
    }

    func run() throws -> ExitStatus {
        let schema = try file.open().schema
        let output = OutputBuffer()
        switch format {
        case "json": output.write(Self.json(schema) + "\n")
        case "swift": output.write(Self.swift(schema))
        default: output.write(Self.text(schema))
        }
        output.flush()
        return .success
    }

    /// The stable name of a property's type in the inspector's JSON (`objectId`, not "object id").
    static func typeName(_ type: PropertyType) -> String {
        switch type {
        case .int: "int"
        case .bool: "bool"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .float: "float"
        case .double: "double"
        case .object: "object"
        case .linkingObjects: "linkingObjects"
        case .objectId: "objectId"
        case .decimal128: "decimal128"
        case .UUID: "uuid"
        case .any: "mixed"
        }
    }

    /// The type a name of ``typeName(_:)`` stands for.
    static func type(named name: String) -> PropertyType? {
        let all: [PropertyType] = [.int, .bool, .string, .data, .date, .float, .double, .object, .linkingObjects, .objectId, .decimal128, .UUID, .any]
        return all.first { typeName($0) == name }
    }

    static func collectionName(_ property: Property) -> String? {
        property.isArray ? "list" : property.isSet ? "set" : property.isMap ? "map" : nil
    }

    /// `[{"className": …, "embedded": …, "primaryKey": …, "properties": [{…}], "computedProperties": [{…}]}, …]`
    static func json(_ schema: Schema) -> String {
        let classes = schema.objectSchema.map { object -> String in
            let properties = object.properties.map { property -> String in
                var fields = [("name", ValueText.quoted(property.name)), ("type", ValueText.quoted(typeName(property.type))),
                              ("optional", "\(property.isOptional)"), ("indexed", "\(property.isIndexed)"),
                              ("primary", "\(property.isPrimary)")]
                if let collection = collectionName(property) { fields.append(("collection", ValueText.quoted(collection))) }
                if let target = property.objectClassName { fields.append(("objectClassName", ValueText.quoted(target))) }
                return "{" + fields.map { ValueText.quoted($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
            }
            let computed = object.computedProperties.map { property in
                "{\"name\":\(ValueText.quoted(property.name)),\"type\":\"linkingObjects\",\"objectClassName\":"
                    + "\(ValueText.quoted(property.objectClassName ?? "")),\"originProperty\":\(ValueText.quoted(property.linkOriginPropertyName ?? ""))}"
            }
            return "{\"className\":\(ValueText.quoted(object.className)),\"embedded\":\(object.isEmbedded),"
                + "\"primaryKey\":\(object.primaryKeyProperty.map { ValueText.quoted($0.name) } ?? "null"),"
                + "\"properties\":[\(properties.joined(separator: ","))],\"computedProperties\":[\(computed.joined(separator: ","))]}"
        }
        return "[" + classes.joined(separator: ",") + "]"
    }

    /// One block per class: `Dog` then `  id: int, primary key` lines.
    static func text(_ schema: Schema) -> String {
        var text = ""
        for object in schema.objectSchema {
            text += object.className + (object.isEmbedded ? " (embedded)" : "") + "\n"
            for property in object.properties {
                var type = typeName(property.type)
                if let target = property.objectClassName { type = target }
                if property.isOptional { type += "?" }
                if let collection = collectionName(property) { type = "\(collection)<\(type)>" }
                var notes: [String] = []
                if property.isPrimary { notes.append("primary key") } else if property.isIndexed { notes.append("indexed") }
                text += "  \(property.name): \(type)\(notes.isEmpty ? "" : ", " + notes.joined(separator: ", "))\n"
            }
            for property in object.computedProperties {
                text += "  \(property.name): linking objects of \(property.objectClassName ?? "?").\(property.linkOriginPropertyName ?? "?")\n"
            }
        }
        return text
    }

    /// Model classes declaring the schema.
    static func swift(_ schema: Schema) -> String {
        var text = "import RealmActors\n"
        for object in schema.objectSchema {
            text += "\nclass \(object.className): \(object.isEmbedded ? "EmbeddedObject" : "Object") {\n"
            for property in object.properties {
                var attributes = ""
                if property.isPrimary { attributes = "(primaryKey: true)" } else if property.isIndexed { attributes = "(indexed: true)" }
                text += "    @Persisted\(attributes) var \(property.name): \(swiftType(property))\n"
            }
            for property in object.computedProperties {
                text += "    @Persisted(originProperty: \"\(property.linkOriginPropertyName ?? "")\") var \(property.name): LinkingObjects<\(property.objectClassName ?? "")>\n"
            }
            text += "}\n"
        }
        return text
    }

    static func swiftType(_ property: Property) -> String {
        var element: String
        switch property.type {
        case .int: element = "Int"
        case .bool: element = "Bool"
        case .string: element = "String"
        case .data: element = "Data"
        case .date: element = "Date"
        case .float: element = "Float"
        case .double: element = "Double"
        case .object, .linkingObjects: element = property.objectClassName ?? "Object"
        case .objectId: element = "ObjectId"
        case .decimal128: element = "Decimal128"
        case .UUID: element = "UUID"
        case .any: element = "AnyRealmValue"
        }
        if property.isOptional, property.type != .any { element += "?" }
        if property.isArray { return "List<\(element)>" }
        if property.isSet { return "MutableSet<\(element)>" }
        if property.isMap { return "Map<String, \(element)>" }
        return element
    }
}
