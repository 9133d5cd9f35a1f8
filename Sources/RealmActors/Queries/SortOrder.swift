import Foundation
internal import RealmRuntime

/// The order `sorted` uses: nil first, then numbers by value, strings and bytes by UTF-8 bytes
/// (which is Unicode scalar order), booleans false first.
enum SortOrder {
    static func compare(_ a: ColumnValue, _ b: ColumnValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.int(let x), .int(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .double(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.float(let x), .float(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.bytes(let x), .bytes(let y)), (.fixed(let x), .fixed(let y)):
            return bytes(x, y)
        default:
            if QueryComparisons.compare(a, .less, b, kind: .double, options: .plain) { return -1 }
            if QueryComparisons.compare(b, .less, a, kind: .double, options: .plain) { return 1 }
            return 0
        }
    }

    /// Byte-wise order (for UTF-8, Unicode scalar order), shorter first on a common prefix.
    private static func bytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
        let result = x.withUnsafeBytes { a in
            y.withUnsafeBytes { b in memcmp(a.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, b.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, min(a.count, b.count)) }
        }
        if result != 0 { return result < 0 ? -1 : 1 }
        return x.count < y.count ? -1 : (x.count == y.count ? 0 : 1)
    }
}
