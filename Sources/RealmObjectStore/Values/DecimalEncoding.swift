/// The stored form of a decimal128 value — IEEE 754-2008 decimal128 in the binary integer
/// decimal (BID) encoding, as Realm and BSON store it, 16 little-endian bytes — as far as the
/// object store needs it: decoding, and Realm's order for sorting. The API's `Decimal128` does
/// arithmetic and formatting on top of these.
///
/// Order: numeric (`1.0`, `1.00` and `1` are equal), NaN before every other value and NaNs by
/// their bits, so that equality is an equivalence and the order total.
package enum DecimalEncoding {
    /// What 128 bits encode.
    package enum Value {
        case nan
        case infinity(negative: Bool)
        /// `coefficient` is at most ``maxCoefficient``; non-canonical encodings read as zero.
        case finite(negative: Bool, coefficient: UInt128, exponent: Int)
    }

    package static let exponentBias = 6176
    package static let minExponent = -6176
    package static let maxExponent = 6111
    package static let maxDigits = 34
    /// 10^0 through 10^38 (the largest power of ten a `UInt128` holds).
    package static let powersOfTen: [UInt128] = {
        var powers: [UInt128] = [1]
        for _ in 1...38 { powers.append(powers.last! * 10) }
        return powers
    }()
    /// 10^34 - 1.
    package static let maxCoefficient = powersOfTen[34] - 1

    /// The bits of 16 stored (little-endian) bytes.
    package static func bits<Bytes: Collection<UInt8>>(storedBytes bytes: Bytes) -> UInt128 {
        precondition(bytes.count == 16, "A Decimal128 has 16 bytes, not \(bytes.count)")
        return bytes.reversed().reduce(0) { $0 << 8 | UInt128($1) }
    }

    /// The value `bits` encode.
    package static func decode(_ bits: UInt128) -> Value {
        let negative = bits >> 127 == 1
        if bits >> 122 & 0x1F == 0x1F { return .nan }
        if bits >> 122 & 0x1F == 0x1E { return .infinity(negative: negative) }
        if bits >> 125 & 0x3 == 0x3 {
            // The coefficient would be at least 2^113 > 10^34 - 1: non-canonical, hence zero.
            let exponent = Int(truncatingIfNeeded: bits >> 111 & 0x3FFF) - exponentBias
            return .finite(negative: negative, coefficient: 0, exponent: exponent)
        }
        let exponent = Int(truncatingIfNeeded: bits >> 113 & 0x3FFF) - exponentBias
        var coefficient = bits & (UInt128(1) << 113 - 1)
        if coefficient > maxCoefficient { coefficient = 0 }
        return .finite(negative: negative, coefficient: coefficient, exponent: exponent)
    }

    /// How many decimal digits `value` has (0 for 0).
    package static func decimalDigits(_ value: UInt128) -> Int {
        var count = 0
        while count < powersOfTen.count && value >= powersOfTen[count] { count += 1 }
        return count
    }

    /// -1, 0 or 1 as the value of `lhs` sorts before, with or after that of `rhs`.
    package static func compare(_ lhs: UInt128, _ rhs: UInt128) -> Int {
        let left = decode(lhs), right = decode(rhs)
        switch (left, right) {
        case (.nan, .nan): return lhs < rhs ? -1 : lhs == rhs ? 0 : 1
        case (.nan, _): return -1
        case (_, .nan): return 1
        default: break
        }
        let leftSign = sign(left), rightSign = sign(right)
        if leftSign != rightSign { return leftSign < rightSign ? -1 : 1 }
        if leftSign == 0 { return 0 }
        let magnitudes = compareMagnitudes(left, right)
        return leftSign > 0 ? magnitudes : -magnitudes
    }

    /// -1, 0 or 1 for a negative value, a zero or a positive value (NaN gives 0).
    private static func sign(_ value: Value) -> Int {
        switch value {
        case .nan: 0
        case .infinity(let negative): negative ? -1 : 1
        case .finite(let negative, let coefficient, _): coefficient == 0 ? 0 : negative ? -1 : 1
        }
    }

    /// Compares the absolute values of two non-NaN values, the finite ones nonzero.
    private static func compareMagnitudes(_ lhs: Value, _ rhs: Value) -> Int {
        switch (lhs, rhs) {
        case (.infinity, .infinity): return 0
        case (.infinity, _): return 1
        case (_, .infinity): return -1
        case (.finite(_, let lc, let le), .finite(_, let rc, let re)):
            let lDigits = decimalDigits(lc), rDigits = decimalDigits(rc)
            // The position of the leading digit decides, unless it is the same.
            if lDigits + le != rDigits + re { return lDigits + le < rDigits + re ? -1 : 1 }
            // Same leading position: at most 33 digits apart, so scaling stays within 34 digits.
            let (l, r) = le >= re ? (lc * powersOfTen[le - re], rc) : (lc, rc * powersOfTen[re - le])
            return l < r ? -1 : l == r ? 0 : 1
        default:
            return 0  // NaN is handled by the caller
        }
    }
}
