import Foundation
package import RealmActors

/// How the inspector writes a stored value, as JSON and as a table cell, for objects of any
/// schema read through the dynamic API (`object[propertyName]`).
///
/// JSON: numbers and booleans as such (a non-finite float as the string `"NaN"`, `"Infinity"`
/// or `"-Infinity"`); strings escaped; dates as ISO 8601 with milliseconds in UTC; data as
/// base64; object ids, UUIDs and decimals as their text; lists and sets as arrays, maps as
/// objects (keys sorted). A link is its target's primary key if the target's class has one, else
/// the target nested as an object (as an embedded object always is), at most ``maximumDepth``
/// deep; deeper, the string `"…"`.
package enum ValueText {
    /// How many links deep an object nests inside another's JSON.
    static let maximumDepth = 4

    /// `value` as JSON text.
    package static func json(_ value: Any?, depth: Int = 0) -> String {
        switch value {
        case nil: return "null"
        case let bool as Bool: return bool ? "true" : "false"
        case let int as Int: return String(int)
        case let double as Double: return number(double)
        case let float as Float: return number(Double(float))
        case let string as String: return quoted(string)
        case let date as Date: return quoted(iso8601(date))
        case let data as Data: return quoted(data.base64EncodedString())
        case let uuid as UUID: return quoted(uuid.uuidString)
        case let object as ObjectBase: return json(object, depth: depth)
        case let array as [Any?]: return "[" + array.map { json($0, depth: depth) }.joined(separator: ",") + "]"
        case let map as [String: Any?]:
            return "{" + map.keys.sorted().map { quoted($0) + ":" + json(map[$0]!, depth: depth) }.joined(separator: ",") + "}"
        case let other?: return quoted("\(other)")  // ObjectId, Decimal128: their text
        }
    }

    /// A linked or embedded object: its primary key, or its properties nested.
    static func json(_ object: ObjectBase, depth: Int) -> String {
        let schema = object.objectSchema
        if !schema.isEmbedded, let key = schema.primaryKeyProperty { return json(object[key.name], depth: depth) }
        guard depth < maximumDepth else { return quoted("…") }
        return objectJSON(object, properties: schema.properties, depth: depth + 1)
    }

    /// `{"name":value,…}` over `properties`, in their order.
    package static func objectJSON(_ object: ObjectBase, properties: [Property], depth: Int = 0) -> String {
        "{" + properties.map { quoted($0.name) + ":" + json(object[$0.name], depth: depth) }.joined(separator: ",") + "}"
    }

    /// `value` as a table or CSV cell: scalars as text, nested values as their JSON.
    static func cell(_ value: Any?) -> String {
        switch value {
        case nil: return ""
        case let string as String: return string
        case let bool as Bool: return bool ? "true" : "false"
        case let int as Int: return String(int)
        case let double as Double: return double.isFinite ? "\(double)" : number(double).replacingOccurrences(of: "\"", with: "")
        case let float as Float: return "\(float)"
        case let date as Date: return iso8601(date)
        case let data as Data: return data.base64EncodedString()
        case let uuid as UUID: return uuid.uuidString
        case is ObjectBase, is [Any?], is [String: Any?]:
            let text = json(value)
            return text.hasPrefix("\"") ? String(text.dropFirst().dropLast()) : text
        case let other?: return "\(other)"
        }
    }

    /// A JSON number, or a string for what JSON cannot spell.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "\"NaN\"" }
        if value.isInfinite { return value < 0 ? "\"-Infinity\"" : "\"Infinity\"" }
        if value == value.rounded(), abs(value) < 1e15 { return String(format: "%.1f", value) }
        return "\(value)"
    }

    /// `string` as a JSON string: quotes, backslashes and control characters escaped.
    static func quoted(_ string: String) -> String {
        var result = "\""
        result.reserveCapacity(string.utf8.count + 2)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count) + String(scalar.value, radix: 16)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// `2026-11-27T08:00:00.123Z`.
    static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
