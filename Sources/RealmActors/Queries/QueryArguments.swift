import Foundation
internal import RealmRuntime

/// Swift values given as query arguments (`%@`, `$0`), in the query engine's terms.
enum QueryArguments {
    static func argument(_ value: Any) throws -> QueryArgument {
        // The common scalars first, a cast each: reflecting on every argument cost more than
        // parsing a short predicate.
        if let string = value as? String { return .value(.string(string)) }
        if value is Bool || value is Int || value is Double { return .value(try queryValue(value)) }
        // An array or a set (not data, a value; strings were taken above): a list of values, for
        // `name IN %@` and `age == ANY $0`, as Realm takes an NSArray or NSSet argument.
        if !(value is Data) {
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .collection || mirror.displayStyle == .set {
                return .values(try mirror.children.map { try queryValue($0.value) })
            }
        }
        return .value(try queryValue(value))
    }

    static func queryValue(_ value: Any?) throws -> QueryValue {
        switch value {
        case let value as String: return .string(value)
        case nil, is NSNull: return .null
        case let value as Bool: return .bool(value)
        case let value as Int: return .int(Int64(value))
        case let value as any BinaryInteger:
            guard let exact = Int64(exactly: value) else { throw QueryError("Integer argument \(value) does not fit 64 bits", at: 0) }
            return .int(exact)
        case let value as Double: return .double(value)
        case let value as Float: return .double(Double(value))
        case let value as Data: return .data(Array(value))
        case let value as Date: return .date(value.timeIntervalSinceReferenceDate)
        case let value as ObjectId: return .objectId(value.bytes)
        case let value as UUID: return .uuid(withUnsafeBytes(of: value.uuid) { Array($0) })
        case let value as Decimal128: return .decimal128(value.storedBytes, approximately: Double(value.stringValue) ?? .nan)
        case let value as AnyRealmValue: return try queryValue(value.swiftValue)
        case let object as ObjectBase:
            guard let state = object.realmState else { throw QueryError("Only managed objects can be query arguments", at: 0) }
            return .object(className: state.table.name, key: state.key)
        case let value as any _Persistable:  // a PersistableEnum: its raw value
            return try queryValue(stored: value)
        default:
            let mirror = Mirror(reflecting: value!)
            if mirror.displayStyle == .optional { return try queryValue(mirror.children.first?.value) }
            throw QueryError("Unsupported query argument of type \(type(of: value!))", at: 0)
        }
    }

    /// A persistable value by its stored form and kind.
    static func queryValue<T: _Persistable>(stored value: T) throws -> QueryValue {
        switch (T._rlmType.kind, value._rlmValue.value) {
        case (_, .null): return .null
        case (.int, .int(let int)): return .int(int)
        case (.string, .bytes(let bytes)): return .string(String(decoding: bytes, as: UTF8.self))
        case (.bool, .bool(let bool)): return .bool(bool)
        case (.double, .double(let double)), (.float, .double(let double)): return .double(double)
        case (.float, .float(let float)): return .double(Double(float))
        case (.date, .double(let seconds)): return .date(seconds)
        case (.data, .bytes(let bytes)): return .data(bytes)
        case (.objectId, .fixed(let bytes)): return .objectId(bytes)
        case (.uuid, .fixed(let bytes)): return .uuid(bytes)
        default: throw QueryError("Unsupported query argument of type \(T.self)", at: 0)
        }
    }
}
