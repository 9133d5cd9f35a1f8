package import RealmStorage

extension IndexKey {
    /// The order-preserving encoding of a stored value.
    package static func encode(_ value: ColumnValue, _ spec: ColumnSpec, kind: PropertyKind?) throws -> [UInt8] {
        switch value {
        case .null: return null()
        case .int(let value): return int(value)
        case .bool(let value): return bool(value)
        case .double(let value): return double(value)
        case .float(let value): return double(Double(value))
        case .bytes(let value): return bytes(value)
        case .fixed(let value): return fixed(value)
        }
    }
}

extension IndexKey {
    /// A key that orders values of one kind as their index encoding does (for sets).
    package static func sortKey(_ value: ColumnValue) -> [UInt8] {
        (try? encode(value, ColumnSpec(.bytes, nullable: true), kind: nil)) ?? null()
    }
}
