/// The physical type of one column of a table, as the storage layer sees it.
///
/// The object store maps each property type onto one of these (`Int`/`Int8`…`Int64` → `.int`,
/// `Date` and `Double` → `.double`, `String`/`Data` → `.bytes`, `ObjectId` → `.fixed(12)`, a link →
/// `.int` holding the target's object key, …).
package struct ColumnSpec: Hashable, Sendable, CustomStringConvertible {
    package enum Kind: UInt8, Sendable {
        /// Signed 64-bit integer, stored at the narrowest width that fits the leaf's values.
        case int = 1
        /// One bit per row.
        case bool = 2
        case float = 3
        case double = 4
        /// A byte string (UTF-8 text or binary) up to 16 MB; long ones live in overflow runs.
        case bytes = 5
        /// Exactly `fixedWidth` raw bytes (ObjectId, UUID, Decimal128).
        case fixed = 6
    }

    package var kind: Kind
    package var nullable: Bool
    /// Bytes per value for `.fixed`; 0 otherwise.
    package var fixedWidth: UInt8

    package init(_ kind: Kind, nullable: Bool = false, fixedWidth: UInt8 = 0) {
        precondition((kind == .fixed) == (fixedWidth > 0), "only fixed columns have a fixed width")
        self.kind = kind
        self.nullable = nullable
        self.fixedWidth = fixedWidth
    }

    package var description: String {
        (kind == .fixed ? "fixed(\(fixedWidth))" : "\(kind)") + (nullable ? "?" : "")
    }

    /// The value a row has for this column when it was never written (a column added later).
    package var defaultValue: ColumnValue {
        if nullable { return .null }
        switch kind {
        case .int: return .int(0)
        case .bool: return .bool(false)
        case .float: return .float(0)
        case .double: return .double(0)
        case .bytes: return .bytes([])
        case .fixed: return .fixed([UInt8](repeating: 0, count: Int(fixedWidth)))
        }
    }
}

/// One value of one column, as handed to and from the storage layer.
package enum ColumnValue: Hashable, Sendable {
    case null
    case int(Int64)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case bytes([UInt8])
    case fixed([UInt8])

    /// Throws `.invalidInput` unless the value may be stored in column `column` of `spec`. The
    /// message describes the value by kind and size, never by content (it may be 16 MB).
    package func checkFits(_ spec: ColumnSpec, column: Int) throws {
        guard !matches(spec) else { return }
        if case .bytes(let bytes) = self, bytes.count > StorageLimits.maximumValueLength {
            throw StorageError(.invalidInput, "Value of \(bytes.count) bytes exceeds the maximum of \(StorageLimits.maximumValueLength) bytes")
        }
        throw StorageError(.invalidInput, "A \(kindDescription) value does not fit column \(column) (\(spec))")
    }

    private var kindDescription: String {
        switch self {
        case .null: "null"
        case .int: "integer"
        case .bool: "boolean"
        case .float: "float"
        case .double: "double"
        case .bytes(let bytes): "\(bytes.count)-byte string"
        case .fixed(let bytes): "\(bytes.count)-byte fixed-width"
        }
    }

    /// Whether the value may be stored in a column of `spec`.
    package func matches(_ spec: ColumnSpec) -> Bool {
        switch (self, spec.kind) {
        case (.null, _): return spec.nullable
        case (.int, .int), (.bool, .bool), (.float, .float), (.double, .double): return true
        case (.bytes(let bytes), .bytes): return bytes.count <= StorageLimits.maximumValueLength
        case (.fixed(let bytes), .fixed): return bytes.count == Int(spec.fixedWidth)
        default: return false
        }
    }
}
