package import RealmStorage

extension ColumnValue {
    /// A short rendering for error messages.
    package var displayText: String {
        switch self {
        case .null: "null"
        case .int(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .float(let value): "\(value)"
        case .double(let value): "\(value)"
        case .bytes(let value): String(decoding: value, as: UTF8.self)
        case .fixed(let value): value.map { String(format: "%02x", $0) }.joined()
        }
    }
}
