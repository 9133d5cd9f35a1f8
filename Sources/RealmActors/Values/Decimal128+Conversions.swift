public import Foundation

extension Decimal128 {
    /// A decimal from a value of any type Realm Swift accepts: a `Decimal128`, an integer, a
    /// floating-point number, an `NSNumber` or a decimal string. Traps, as Realm raises, on a
    /// string that is not a decimal number or a value of another type; parse untrusted text with
    /// ``init(string:)``, which throws.
    public init(value: Any) {
        switch value {
        case let decimal as Decimal128: self = decimal
        case let integer as Int: self.init(integer)
        case let integer as any BinaryInteger:
            guard let exact = Int(exactly: integer) else { fatalError("Cannot convert \(integer) to a Decimal128 exactly") }
            self.init(exact)
        case let double as Double: self.init(double)
        case let float as Float: self.init(Double(float))
        case let number as NSNumber: self.init(number: number)
        case let string as String:
            guard let parsed = try? Decimal128(string: string) else { fatalError("Cannot convert '\(string)' to a Decimal128") }
            self = parsed
        default:
            fatalError("Cannot convert a value of type \(type(of: value)) to a Decimal128")
        }
    }

    /// A decimal from an `NSNumber`, through its exact decimal value (`NSNumber.decimalValue`).
    public init(number: NSNumber) {
        self = (try? Decimal128(string: "\(number.decimalValue)")) ?? Decimal128(number.doubleValue)
    }
}
