import Foundation
import RealmActors

/// The dump format: JSON lines that `dump` writes and `load` reads back into a new realm with
/// the same schema and objects.
///
/// **Line 1, the header:** `{"realmDump":1,"schema":[…]}`, the schema as `schema --format json`
/// prints it (classes, properties with type, optionality, index, primary key, collection, link
/// target; linking-objects properties).
///
/// **Then one line per object** of every class that is not embedded, classes in name order,
/// objects in key order: `{"$class":"Dog","id":1,"name":"Rex",…}`, one key per property.
/// - Objects of a class without a primary key carry `"$id": n`, their position among the
///   class's objects in the dump (0, 1, …), which is how links name them.
/// - A link is the target's primary key (`"owner": 7`), or `{"$id": n}` for a target without
///   one; an embedded object is nested, its properties encoded the same way.
/// - Values whose type the schema gives are plain JSON: integers and booleans; floats as numbers
///   (non-finite ones as `"NaN"`, `"Infinity"`, `"-Infinity"`); strings; data as base64; object
///   ids, UUIDs and decimals as their text; dates as ISO 8601 strings with milliseconds when that
///   is exact, else `{"$date": seconds since 1970}` (every bit of the stored double); lists and
///   sets as arrays, maps as objects.
/// - An `AnyRealmValue` says its type where JSON cannot: null, booleans, integers and strings are
///   plain; every other value is `{"$type":"double","value":…}` (`float`, `date`, `data`, `uuid`,
///   `objectId`, `decimal128` likewise), a link `{"$type":"object","class":"Dog","value":<link>}`,
///   a nested list or dictionary `{"$type":"list","value":[…]}` / `{"$type":"dictionary","value":{…}}`.
///
/// `load` reads the file twice: first it creates every object (a primary key, or nothing), so
/// that any object can be linked to; then it sets every property. Both passes run in one write
/// transaction: a load is complete or leaves no file.
/// How ``DumpFormat`` writes the objects a line links to or embeds.
struct DumpLinks {
    /// The `$id` of a linked object of a class without a primary key.
    let ordinal: (ObjectBase) -> Int?
    /// Whether a linked or embedded object may be read. One that may not (`recover`: it was in
    /// a damaged page) is written as null, and left out of a list or set.
    var isReadable: (ObjectBase) -> Bool = { _ in true }
}

enum DumpFormat {
    static let version = 1

    // MARK: Writing

    /// The header line (without its newline).
    static func header(_ schema: Schema) -> String {
        "{\"realmDump\":\(version),\"schema\":\(SchemaCommand.json(schema))}"
    }

    /// An object's line (without its newline). `ordinal`: its `$id`, for a class without a
    /// primary key. `links` finds the `$id` of a linked object of such a class, and says which
    /// linked objects may be read.
    static func line(_ object: ObjectBase, schema: ObjectSchema, ordinal: Int?, links: DumpLinks) throws -> String {
        var fields = ["\"$class\":" + ValueText.quoted(schema.className)]
        if let ordinal { fields.append("\"$id\":\(ordinal)") }
        for property in schema.properties {
            fields.append(ValueText.quoted(property.name) + ":" + (try value(object[property.name], property, links: links)))
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A property's value: its collection or single value.
    static func value(_ value: Any?, _ property: Property, links: DumpLinks) throws -> String {
        guard let value else { return "null" }
        if property.isMap, let map = value as? [String: Any?] {
            return "{" + (try map.keys.sorted().map { ValueText.quoted($0) + ":" + (try single(map[$0]!, property, links: links)) })
                .joined(separator: ",") + "}"
        }
        if property.isArray || property.isSet, let array = value as? [Any?] {
            // A list or set holds no nulls: an object that may not be read is left out.
            let readable = array.filter { element in (element as? ObjectBase).map(links.isReadable) ?? true }
            return "[" + (try readable.map { try single($0, property, links: links) }).joined(separator: ",") + "]"
        }
        return try single(value, property, links: links)
    }

    /// One value of the property's type (an element, for a collection).
    static func single(_ value: Any?, _ property: Property, links: DumpLinks) throws -> String {
        guard let value else { return "null" }
        switch property.type {
        case .any: return try mixed(value, links: links)
        case .object, .linkingObjects:
            guard let object = value as? ObjectBase else { return "null" }
            return try link(object, links: links)
        case .date:
            guard let date = value as? Date else { return "null" }
            return Self.date(date)
        default: return ValueText.json(value)
        }
    }

    /// A link, or an embedded object nested.
    static func link(_ object: ObjectBase, links: DumpLinks) throws -> String {
        guard links.isReadable(object) else { return "null" }
        let schema = object.objectSchema
        if schema.isEmbedded {
            return "{" + (try schema.properties.map { ValueText.quoted($0.name) + ":" + (try value(object[$0.name], $0, links: links)) })
                .joined(separator: ",") + "}"
        }
        if let key = schema.primaryKeyProperty { return ValueText.json(object[key.name]) }
        guard let ordinal = links.ordinal(object) else { throw InspectionError("An object of '\(schema.className)' is linked but was not dumped") }
        return "{\"$id\":\(ordinal)}"
    }

    /// An ISO 8601 string when milliseconds hold the date exactly, else the exact seconds.
    static func date(_ date: Date) -> String {
        let text = ValueText.iso8601(date)
        if let parsed = parseDate(text), parsed == date { return ValueText.quoted(text) }
        return "{\"$date\":\(date.timeIntervalSince1970)}"
    }

    /// An `AnyRealmValue`'s Swift value, tagged where JSON cannot tell its type.
    static func mixed(_ value: Any?, links: DumpLinks) throws -> String {
        func tagged(_ type: String, _ json: String) -> String { "{\"$type\":\"\(type)\",\"value\":\(json)}" }
        switch value {
        case nil: return "null"
        case let bool as Bool: return bool ? "true" : "false"
        case let int as Int: return String(int)
        case let string as String: return ValueText.quoted(string)
        case let double as Double: return tagged("double", ValueText.number(double))
        case let float as Float: return tagged("float", ValueText.number(Double(float)))
        case let date as Date: return tagged("date", Self.date(date))
        case let data as Data: return tagged("data", ValueText.quoted(data.base64EncodedString()))
        case let uuid as UUID: return tagged("uuid", ValueText.quoted(uuid.uuidString))
        case let id as ObjectId: return tagged("objectId", ValueText.quoted(id.stringValue))
        case let decimal as Decimal128: return tagged("decimal128", ValueText.quoted("\(decimal)"))
        case let object as ObjectBase:
            guard links.isReadable(object) else { return "null" }
            return "{\"$type\":\"object\",\"class\":\(ValueText.quoted(object.objectSchema.className)),\"value\":\(try link(object, links: links))}"
        case let list as List<AnyRealmValue>:
            return tagged("list", "[" + (try list.map { try mixed($0.swiftValue, links: links) }).joined(separator: ",") + "]")
        case let map as Map<String, AnyRealmValue>:
            let keys = map.keys.sorted()
            return tagged("dictionary", "{" + (try keys.map { ValueText.quoted($0) + ":" + (try mixed(map[$0]?.swiftValue, links: links)) })
                .joined(separator: ",") + "}")
        case let other?: throw InspectionError("A mixed value of type \(type(of: other)) cannot be dumped")
        }
    }

    // MARK: Reading

    /// `2026-11-27T08:00:00.123Z` (fractional seconds optional).
    static func parseDate(_ text: String) -> Date? {
        (try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: Date.ISO8601FormatStyle()))
    }
}
