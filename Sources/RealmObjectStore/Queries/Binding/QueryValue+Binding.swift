import Foundation

extension QueryValue {
    /// The value as a number, if it is one.
    var numeric: Double? {
        switch self {
        case .int(let int): Double(int)
        case .double(let double): double
        default: nil
        }
    }

    var typeDescription: String {
        switch self {
        case .null: "nil"
        case .bool(let value): "bool \(value)"
        case .int(let value): "int \(value)"
        case .double(let value): "double \(value)"
        case .string(let value): "string '\(value)'"
        case .data(let bytes): "data of \(bytes.count) bytes"
        case .date: "a date"
        case .objectId: "an object id"
        case .uuid: "a uuid"
        case .decimal128: "a decimal128"
        case .object(let className, _): "an object of type '\(className)'"
        case .argument(let index): "argument \(index) (not filled in)"
        }
    }

    /// The value as an `AnyRealmValue` column stores it (objects are not stored this way).
    var mixedStored: ColumnValue {
        switch self {
        case .null: .null
        case .bool(let value): MixedValue.value(.bool, .bool(value)).stored
        case .int(let value): MixedValue.value(.int, .int(value)).stored
        case .double(let value): MixedValue.value(.double, .double(value)).stored
        case .string(let value): MixedValue.value(.string, .bytes(Array(value.utf8))).stored
        case .data(let value): MixedValue.value(.data, .bytes(value)).stored
        case .date(let value): MixedValue.value(.date, .double(value)).stored
        case .objectId(let value): MixedValue.value(.objectId, .fixed(value)).stored
        case .uuid(let value): MixedValue.value(.uuid, .fixed(value)).stored
        case .decimal128(let value, _): MixedValue.value(.decimal128, .fixed(value)).stored
        case .object: .null
        case .argument: preconditionFailure("a query template's argument slot reached the binder")
        }
    }
}
