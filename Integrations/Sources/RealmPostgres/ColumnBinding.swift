import Foundation
import NIOCore
import PostgresNIO
import RealmActors

/// A property's value as a PostgreSQL parameter of its column's type (see
/// ``PostgresReplicationSink``): scalars as themselves, `ObjectId` as its hex text, `Decimal128`
/// as its decimal text (cast to numeric), a link as the target's key (``Realm/ObjectKey``), and everything
/// else — `AnyRealmValue`, collections, embedded objects — as JSON text (cast to jsonb).
///
/// **Values PostgreSQL cannot store as they are** (see ``PostgresReplicationSink``, "Values"):
/// a string's NUL characters (text and jsonb refuse U+0000) become U+FFFD; a date before
/// 4713 BC or after 294276 AD is `-infinity` or `infinity`; a `Decimal128` NaN or infinity is
/// numeric `NaN` or `±Infinity` (PostgreSQL 14 and later); a `Double`'s or `Float`'s NaN and
/// infinities are stored as they are (as null inside JSON, which has no such numbers).
enum ColumnBinding {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case text(String)
    case bytes([UInt8])
    case date(Date)
    case uuid(UUID)

    init(_ key: Realm.ObjectKey) {
        switch key {
        case .int(let value): self = .int(Int64(value))
        case .string(let value): self = .text(Self.storable(value))
        case .objectId(let value): self = .text(value.stringValue)
        case .uuid(let value): self = .uuid(value)
        case .null: self = .null
        case .objectKey(let value): self = .int(Int64(bitPattern: value))
        }
    }

    /// `string` with each NUL (which PostgreSQL's text and jsonb refuse) replaced by U+FFFD.
    static func storable(_ string: String) -> String {
        guard string.utf8.contains(0) else { return string }
        return String(String.UnicodeScalarView(string.unicodeScalars.map { $0 == "\u{0}" ? "\u{FFFD}" : $0 }))
    }

    /// The range of PostgreSQL's `timestamptz`, in seconds since 1970: 4713-11-24 BC to
    /// 294276-12-31 AD.
    static let timestampRange: ClosedRange<Double> = -210_866_803_200 ... 9_224_318_015_999

    /// A date as a `timestamptz` parameter: outside PostgreSQL's range, `±infinity`.
    static func timestamp(_ date: Date) -> ColumnBinding {
        let seconds = date.timeIntervalSince1970
        if seconds < timestampRange.lowerBound { return .text("-infinity") }
        if seconds > timestampRange.upperBound { return .text("infinity") }
        return .date(date)
    }

    /// A decimal as a `numeric` parameter: its digits, or PostgreSQL's names for NaN and the
    /// infinities.
    static func numeric(_ value: Decimal128) -> ColumnBinding {
        if value.isNaN { return .text("NaN") }
        if value.isInfinite { return .text(value < 0 ? "-Infinity" : "Infinity") }
        return .text(value.stringValue)
    }

    init(_ value: Any?, property: Property) {
        guard let value, !(value is NSNull) else { self = .null; return }
        if property.isArray || property.isSet || property.isMap || property.type == .any {
            self = .text(JSONText.encode(value))
            return
        }
        switch value {
        case let value as Int: self = .int(Int64(value))
        case let value as Int64: self = .int(value)
        case let value as Int32: self = .int(Int64(value))
        case let value as Int16: self = .int(Int64(value))
        case let value as Int8: self = .int(Int64(value))
        case let value as Bool: self = .bool(value)
        case let value as Float: self = .float(value)
        case let value as Double: self = .double(value)
        case let value as String: self = .text(Self.storable(value))
        case let value as Data: self = .bytes([UInt8](value))
        case let value as Date: self = Self.timestamp(value)
        case let value as UUID: self = .uuid(value)
        case let value as ObjectId: self = .text(value.stringValue)
        case let value as Decimal128: self = Self.numeric(value)
        case let object as ObjectBase:
            // A link: the target's key (its primary key, or its object key: `_realm_key`); an
            // embedded object: the object as JSON.
            if object.objectSchema.isEmbedded {
                self = .text(JSONText.encode(object))
            } else {
                self = Realm.ObjectKey(object).map(ColumnBinding.init) ?? .null
            }
        default:
            self = .text(JSONText.encode(value))
        }
    }

    func append(to binds: inout PostgresBindings) {
        switch self {
        case .null: binds.appendNull()
        case .int(let value): binds.append(value)
        case .bool(let value): binds.append(value)
        case .float(let value): binds.append(value)
        case .double(let value): binds.append(value)
        case .text(let value): binds.append(value)
        case .bytes(let value): binds.append(ByteBuffer(bytes: value))
        case .date(let value): binds.append(value)
        case .uuid(let value): binds.append(value)
        }
    }
}

/// Values as JSON text, for jsonb columns: numbers and booleans as themselves, strings, dates
/// (ISO 8601), data (base64), ObjectIds, decimals and UUIDs as strings; collections as arrays,
/// maps and objects as objects (a linked object as its key — its primary key, or its object key
/// if its class has none; an embedded object with its properties).
enum JSONText {
    static func encode(_ value: Any?) -> String {
        var text = ""
        write(value, into: &text, depth: 0)
        return text
    }

    static func write(_ value: Any?, into text: inout String, depth: Int) {
        guard depth < 32, let value, !(value is NSNull) else { text += "null"; return }
        switch value {
        case let value as Bool: text += value ? "true" : "false"
        case let value as Int: text += String(value)
        case let value as Int64: text += String(value)
        case let value as Int32: text += String(value)
        case let value as Int16: text += String(value)
        case let value as Int8: text += String(value)
        case let value as Double: text += value.isFinite ? "\(value)" : "null"
        case let value as Float: text += value.isFinite ? "\(value)" : "null"
        case let value as String: quote(value, into: &text)
        case let value as Date: quote(ISO8601DateFormatter().string(from: value), into: &text)
        case let value as Data: quote(value.base64EncodedString(), into: &text)
        case let value as ObjectId: quote(value.stringValue, into: &text)
        case let value as Decimal128: quote(value.stringValue, into: &text)
        case let value as UUID: quote(value.uuidString, into: &text)
        case let value as AnyRealmValue: writeMixed(value, into: &text, depth: depth)
        case let object as ObjectBase:
            let schema = object.objectSchema
            if !schema.isEmbedded {
                writeKey(Realm.ObjectKey(object), into: &text)
            } else {
                text += "{"
                for (index, property) in schema.properties.enumerated() {
                    if index > 0 { text += "," }
                    quote(property.name, into: &text)
                    text += ":"
                    write(object[property.name], into: &text, depth: depth + 1)
                }
                text += "}"
            }
        case let sequence as any Sequence:
            var elements: [Any] = []
            for element in sequence { elements.append(element) }
            // A map iterates (key, value) pairs.
            if let first = elements.first, Mirror(reflecting: first).displayStyle == .tuple {
                text += "{"
                for (index, element) in elements.enumerated() {
                    let children = Array(Mirror(reflecting: element).children)
                    guard children.count == 2 else { continue }
                    if index > 0 { text += "," }
                    quote("\(children[0].value)", into: &text)
                    text += ":"
                    write(children[1].value, into: &text, depth: depth + 1)
                }
                text += "}"
            } else {
                text += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { text += "," }
                    write(element, into: &text, depth: depth + 1)
                }
                text += "]"
            }
        default:
            quote("\(value)", into: &text)
        }
    }

    /// A linked object's key: its primary key, or its object key.
    static func writeKey(_ key: Realm.ObjectKey?, into text: inout String) {
        switch key {
        case .int(let value): text += String(value)
        case .string(let value): quote(value, into: &text)
        case .objectId(let value): quote(value.stringValue, into: &text)
        case .uuid(let value): quote(value.uuidString, into: &text)
        case .objectKey(let value): text += String(Int64(bitPattern: value))
        case .null, nil: text += "null"
        }
    }

    static func writeMixed(_ value: AnyRealmValue, into text: inout String, depth: Int) {
        switch value {
        case .none: text += "null"
        case .int(let value): write(value, into: &text, depth: depth)
        case .bool(let value): write(value, into: &text, depth: depth)
        case .float(let value): write(value, into: &text, depth: depth)
        case .double(let value): write(value, into: &text, depth: depth)
        case .string(let value): write(value, into: &text, depth: depth)
        case .data(let value): write(value, into: &text, depth: depth)
        case .date(let value): write(value, into: &text, depth: depth)
        case .object(let value): write(value, into: &text, depth: depth)
        case .objectId(let value): write(value, into: &text, depth: depth)
        case .decimal128(let value): write(value, into: &text, depth: depth)
        case .uuid(let value): write(value, into: &text, depth: depth)
        case .dictionary(let value): write(value, into: &text, depth: depth)
        case .list(let value): write(value, into: &text, depth: depth)
        }
    }

    static func quote(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case "\u{0}": text += "\u{FFFD}"  // jsonb refuses \u0000 (see ColumnBinding)
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}
