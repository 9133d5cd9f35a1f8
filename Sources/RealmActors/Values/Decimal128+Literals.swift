// Writing a decimal as a literal, and its Codable form (a string, so no digit is lost in JSON).

extension Decimal128: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByStringLiteral {
    /// Creates the value of an integer literal: `let count: Decimal128 = 42`.
    public init(integerLiteral value: Int64) {
        self.init(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// Creates a value from a floating-point literal through its shortest decimal
    /// representation, as the `Double` initializer does: `let rate: Decimal128 = 0.1` is exactly `0.1`.
    public init(floatLiteral value: Double) {
        self.init(value)
    }

    /// Parses a string literal as ``init(string:)`` does: `let price: Decimal128 = "19.99"`.
    ///
    /// Traps if the string is not a decimal number.
    public init(stringLiteral value: String) {
        guard let parsed = Decimal128.parse(value) else {
            preconditionFailure("Invalid Decimal128 string '\(value)'")
        }
        self = parsed
    }
}

extension Decimal128: Codable {
    /// Decodes a value from a string (as ``init(string:)`` parses it), an integer or a double.
    ///
    /// - Throws: A `DecodingError` if the value is none of these, ``Realm/Error`` if a string is not
    ///   a decimal number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            try self.init(string: string)
        } else if let int = try? container.decode(Int64.self) {
            self.init(integerLiteral: int)
        } else if let double = try? container.decode(Double.self) {
            self.init(double)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Cannot convert value to Decimal128")
        }
    }

    /// Encodes the value as its ``stringValue``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }
}
