import Foundation

/// The type names of `@type`, as realm-core's `TypeOfValue` spells them (case-insensitive), and
/// the name of a stored mixed value's type.
package enum QueryValueType {
    /// Each accepted name and the type names it matches.
    static let aliases: [(String, [String])] = [
        ("null", ["null"]), ("int", ["int"]), ("integer", ["int"]), ("int16", ["int"]), ("int32", ["int"]),
        ("int64", ["int"]), ("short", ["int"]), ("long", ["int"]), ("byte", ["int"]), ("char", ["int"]),
        ("bool", ["bool"]), ("boolean", ["bool"]), ("string", ["string"]), ("binary", ["binary"]),
        ("data", ["binary"]), ("bytearray", ["binary"]), ("byte[]", ["binary"]), ("bindata", ["binary"]),
        ("date", ["timestamp"]), ("datetimeoffset", ["timestamp"]), ("timestamp", ["timestamp"]),
        ("float", ["float"]), ("double", ["double"]), ("decimal128", ["decimal128"]), ("decimal", ["decimal128"]),
        ("objectlink", ["objectlink"]), ("link", ["objectlink"]), ("objectid", ["objectid"]), ("uuid", ["uuid"]),
        ("guid", ["uuid"]), ("numeric", ["int", "float", "double", "decimal128"]), ("object", ["object"]),
        ("dictionary", ["object"]), ("array", ["array"]), ("list", ["array"]), ("collection", ["array", "object"]),
    ]

    /// The type names a written name matches; nil for an unknown name.
    static func names(matching written: String) -> [String]? {
        let lowered = written.lowercased()
        return aliases.first { $0.0 == lowered }?.1
    }

    /// The type name of a stored mixed value.
    static func name(ofMixed stored: ColumnValue) -> String {
        switch MixedValue(stored: stored) {
        case .null: "null"
        case .link: "objectlink"
        case .list: "array"
        case .dictionary: "object"
        case .value(let kind, _):
            switch kind {
            case .data: "binary"
            case .date: "timestamp"
            case .objectId: "objectid"
            case .object: "objectlink"
            default: kind.rawValue
            }
        }
    }
}
