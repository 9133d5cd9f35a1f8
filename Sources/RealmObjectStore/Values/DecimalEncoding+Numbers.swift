/// Decimals meeting binary numbers in queries: a number literal compared with a decimal property
/// is converted to a decimal once, at binding, so rows compare decimal against decimal (exactly,
/// in ``DecimalEncoding/compare(_:_:)``'s order); a decimal meeting a binary number property or
/// summed is read as the `Double` nearest to it, as Realm's mixed-type comparisons do.
extension DecimalEncoding {
    /// The stored bytes (little-endian BID) of a finite value, its coefficient at most 34 digits.
    package static func storedBytes(negative: Bool, coefficient: UInt128, exponent: Int) -> [UInt8] {
        let bits = (negative ? UInt128(1) << 127 : 0) | UInt128(exponent + exponentBias) << 113 | coefficient
        return storedBytes(bits)
    }

    /// The 16 little-endian bytes of `bits`.
    package static func storedBytes(_ bits: UInt128) -> [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: bits >> ($0 * 8)) }
    }

    /// An integer as a decimal (exact: 64 bits are at most 20 digits).
    package static func storedBytes(of value: Int64) -> [UInt8] {
        storedBytes(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// A double as a decimal through its shortest decimal representation, so `1.1` is the
    /// decimal 1.1 (not the binary value nearest to it); infinities and NaN map to theirs.
    package static func storedBytes(of value: Double) -> [UInt8] {
        if value.isNaN { return storedBytes(UInt128(0x1F) << 122) }
        if value.isInfinite { return storedBytes((value < 0 ? UInt128(1) << 127 : 0) | UInt128(0x1E) << 122) }
        // "1.5", "1e-07", "1.2345e+20": digits, an optional point, an optional exponent.
        var coefficient: UInt128 = 0
        var exponent = 0
        var afterPoint = false
        let text = "\(value.magnitude)"
        var scanner = text.utf8.makeIterator()
        while let byte = scanner.next() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                coefficient = coefficient * 10 + UInt128(byte - UInt8(ascii: "0"))
                if afterPoint { exponent -= 1 }
            case UInt8(ascii: "."): afterPoint = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"):
                exponent += Int(String(decoding: Array(IteratorSequence(scanner)), as: UTF8.self)) ?? 0
                return storedBytes(negative: value.sign == .minus, coefficient: coefficient, exponent: exponent)
            default: break
            }
        }
        return storedBytes(negative: value.sign == .minus, coefficient: coefficient, exponent: exponent)
    }

    /// The `Double` nearest to the decimal `bits` encode (no allocation: used per row).
    package static func double(_ bits: UInt128) -> Double {
        switch decode(bits) {
        case .nan: return .nan
        case .infinity(let negative): return negative ? -.infinity : .infinity
        case .finite(let negative, let coefficient, let exponent):
            let magnitude = Double(coefficient) * pow10(exponent)
            return negative ? -magnitude : magnitude
        }
    }

    /// The `Double` nearest to a decimal given as its stored bytes.
    package static func double<Bytes: Collection<UInt8>>(storedBytes bytes: Bytes) -> Double {
        double(bits(storedBytes: bytes))
    }

    private static func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        let base = exponent < 0 ? 0.1 : 10.0
        // Exact powers up to 10^22, then repeated products (far-off exponents saturate).
        if (-22...22).contains(exponent), exponent >= 0 {
            for _ in 0..<exponent { result *= 10 }
            return result
        }
        if exponent < 0, exponent >= -22 {
            for _ in 0..<(-exponent) { result *= 10 }
            return 1 / result
        }
        for _ in 0..<min(abs(exponent), 400) { result *= base }
        return result
    }
}
