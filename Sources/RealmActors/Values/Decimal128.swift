internal import RealmRuntime

/// A 128-bit IEEE 754-2008 decimal floating-point number: Realm Swift's and BSON's `Decimal128`.
///
/// A value is `sign × coefficient × 10^exponent` with a coefficient of up to 34 decimal digits and
/// an exponent from -6176 to 6111, stored in the binary integer decimal (BID) encoding, as Realm
/// and BSON store it. Unlike `Double`, decimal fractions such as `0.1` are exact. Besides finite
/// values there are positive and negative infinity and NaN ("not a number").
///
/// ```swift
/// let price: Decimal128 = "19.99"
/// let total = price * 3          // 59.97, exactly
/// print(total > 50)              // true
/// ```
///
/// Values compare numerically: `1.0`, `1.00` and `1` are equal (and hash alike) although they
/// keep their own exponents and print differently. As in Realm's queries and sorting, NaN is
/// ordered before every other value and equal to a NaN with the same bits, so that `==` is an
/// equivalence and `<` a total order (unlike `Double`, where NaN is unordered).
///
/// Arithmetic (`+`, `-`, `*`, `/`) follows IEEE 754 with rounding half to even: a result that fits
/// in 34 digits is exact (and keeps the preferred exponent, so `1.10 + 2.205` is `3.305` and
/// `2.50 * 2` is `5.00`); otherwise it is correctly rounded to 34 significant digits. Results
/// beyond the exponent range become infinity (overflow) or round towards zero (underflow,
/// including gradual underflow). No exception flags are kept.
public struct Decimal128: Sendable, CustomStringConvertible {
    /// The 128 bits of the BID encoding.
    private var bits: UInt128

    // MARK: Creating values

    /// Creates a zero (`0`).
    public init() {
        bits = Decimal128.encode(negative: false, coefficient: 0, exponent: 0)
    }

    /// Parses a decimal string.
    ///
    /// Accepted are an optional sign, digits with an optional decimal point (`123`, `-0.0001`,
    /// `.5`, `5.`), an optional exponent (`1E+10`, `2.5e-3`), and, without regard to case,
    /// `NaN`, `Inf` and `Infinity` (optionally signed). Values with more than 34 significant
    /// digits are rounded half to even; exponents out of range give infinity or zero.
    ///
    /// - Parameter string: The string to parse; no surrounding spaces are allowed.
    /// - Throws: ``Realm/Error`` with code ``Realm/Error/Code/invalidInput`` if the string is
    ///   not a decimal number.
    public init(string: String) throws {
        guard let value = Decimal128.parse(string) else {
            throw Realm.Error(.invalidInput, "Invalid Decimal128 string '\(string)'")
        }
        self = value
    }

    /// Creates the value of an integer, exactly.
    public init(_ value: Int) {
        self.init(negative: value < 0, coefficient: UInt128(value.magnitude), exponent: 0)
    }

    /// Creates a value from a double through its shortest decimal representation, so
    /// `Decimal128(0.1)` is exactly `0.1` (not the binary value nearest to it) and
    /// `Decimal128(2.0)` is `2`. Infinities and NaN convert to their decimal counterparts.
    public init(_ value: Double) {
        if value.isNaN { self = .nan; return }
        if value.isInfinite { self = value < 0 ? -.infinity : .infinity; return }
        var text = "\(value)"
        if text.hasSuffix(".0") { text.removeLast(2) }
        guard let parsed = Decimal128.parse(text) else {
            preconditionFailure("Could not convert \(value) to Decimal128")
        }
        self = parsed
    }

    /// Creates the value of an integer if it has at most 34 digits, so that it is represented
    /// exactly; nil otherwise.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let magnitude = UInt128(exactly: source.magnitude), magnitude <= Decimal128.maxCoefficient else {
            return nil
        }
        self.init(negative: source < 0, coefficient: magnitude, exponent: 0)
    }

    /// A finite value `sign × coefficient × 10^exponent`, which must be in range.
    init(negative: Bool, coefficient: UInt128, exponent: Int) {
        bits = Decimal128.encode(negative: negative, coefficient: coefficient, exponent: exponent)
    }

    private init(bits: UInt128) { self.bits = bits }

    /// Positive infinity.
    public static var infinity: Decimal128 { Decimal128(bits: 0x78 << 120) }

    /// A quiet NaN ("not a number").
    public static var nan: Decimal128 { Decimal128(bits: 0x7C << 120) }

    /// The largest finite value, `9999999999999999999999999999999999E+6111`.
    public static var max: Decimal128 {
        Decimal128(negative: false, coefficient: maxCoefficient, exponent: maxExponent)
    }

    /// The smallest (most negative) finite value, `-9999999999999999999999999999999999E+6111`.
    public static var min: Decimal128 {
        Decimal128(negative: true, coefficient: maxCoefficient, exponent: maxExponent)
    }

    // MARK: Properties

    /// Whether the value is NaN ("not a number").
    public var isNaN: Bool { bits >> 122 & 0x1F == 0x1F }

    /// Whether the value is a signaling NaN.
    public var isSignaling: Bool { bits >> 121 & 0x3F == 0x3F }

    /// Whether the value is a signaling NaN (the same as ``isSignaling``).
    public var isSignalingNaN: Bool { isSignaling }

    /// Whether the value is positive or negative infinity.
    public var isInfinite: Bool { bits >> 122 & 0x1F == 0x1E }

    /// The absolute value (NaN stays NaN).
    public var magnitude: Decimal128 { Decimal128(bits: bits & ~(UInt128(1) << 127)) }

    /// The value as a string that ``init(string:)`` parses back to the same coefficient and
    /// exponent: plain notation when the exponent is at most 0 and the number is not smaller than
    /// `1E-6` in scale (`123.456`, `-0.0001`, `1.00`), scientific notation otherwise (`1E+10`,
    /// `1.23E-9`), and `NaN`, `Infinity`, `-Infinity`.
    ///
    /// This is the string form of the BSON Decimal128 specification (IEEE 754's
    /// to-scientific-string). Realm Swift's own formatting differs in notation for some values
    /// (it prints `0.5` as `5E-1`); both parse to the same number.
    public var stringValue: String {
        switch unpacked {
        case .nan: return "NaN"
        case .infinity(let negative): return negative ? "-Infinity" : "Infinity"
        case .finite(let negative, let coefficient, let exponent):
            let digits = String(coefficient)
            let adjusted = exponent + digits.count - 1
            var text = negative ? "-" : ""
            if exponent <= 0 && adjusted >= -6 {
                if exponent == 0 {
                    text += digits
                } else {
                    let before = digits.count + exponent
                    if before > 0 {
                        text += String(digits.prefix(before)) + "." + String(digits.dropFirst(before))
                    } else {
                        text += "0." + String(repeating: "0", count: -before) + digits
                    }
                }
            } else {
                text += String(digits.prefix(1))
                if digits.count > 1 { text += "." + String(digits.dropFirst()) }
                text += "E" + (adjusted >= 0 ? "+" : "") + String(adjusted)
            }
            return text
        }
    }

    /// ``stringValue``.
    public var description: String { stringValue }

    // MARK: Encoding

    /// What a value is, decoded from its bits (``DecimalEncoding`` of the object store owns the
    /// encoding and the order).
    private typealias Unpacked = DecimalEncoding.Value

    private static let exponentBias = DecimalEncoding.exponentBias
    private static let minExponent = DecimalEncoding.minExponent
    private static let maxExponent = DecimalEncoding.maxExponent
    private static let maxDigits = DecimalEncoding.maxDigits
    private static let maxCoefficient = DecimalEncoding.maxCoefficient
    private static let powersOfTen = DecimalEncoding.powersOfTen

    private var unpacked: Unpacked { DecimalEncoding.decode(bits) }

    private static func encode(negative: Bool, coefficient: UInt128, exponent: Int) -> UInt128 {
        precondition(coefficient <= maxCoefficient && (minExponent...maxExponent).contains(exponent))
        return (negative ? UInt128(1) << 127 : 0) | UInt128(exponent + exponentBias) << 113 | coefficient
    }

    /// The 16 bytes as stored: the 128-bit encoding, little-endian.
    var storedBytes: [UInt8] {
        (0..<16).map { UInt8(truncatingIfNeeded: bits >> (8 * $0)) }
    }

    /// The value stored as the given 16 little-endian bytes.
    init<Bytes: Collection<UInt8>>(storedBytes bytes: Bytes) {
        bits = DecimalEncoding.bits(storedBytes: bytes)
    }

    // MARK: Rounding

    /// The decimal128 nearest to `(negative ? -1 : 1) × (coefficient + tail) × 10^exponent`, where
    /// `tail` is 0 if `inexact` is false and strictly between 0 and 1 otherwise; ties round to
    /// even. A caller passing `inexact` gives a coefficient of more than 34 digits, so that the
    /// digit deciding the rounding is in `coefficient`.
    private static func rounded(negative: Bool, coefficient: UInt256, exponent: Int, inexact: Bool = false) -> Decimal128 {
        var coefficient = coefficient
        var exponent = exponent
        var sticky = inexact
        let digits = coefficient.decimalDigits
        let drop = Swift.max(digits - maxDigits, minExponent - exponent)
        if drop > 0 {
            exponent += drop
            if drop > digits + 1 {
                coefficient = UInt256(0)  // below a tenth of the last kept place: rounds to zero
            } else {
                // Drop all but the deciding digit into `sticky`, then round on that digit.
                var remaining = drop - 1
                while remaining > 0 {
                    let step = Swift.min(remaining, 38)
                    let (quotient, remainder) = coefficient.quotientAndRemainder(dividingBy: powersOfTen[step])
                    coefficient = quotient
                    sticky = sticky || remainder != 0
                    remaining -= step
                }
                let (quotient, digit) = coefficient.quotientAndRemainder(dividingBy: 10)
                coefficient = quotient
                if digit > 5 || (digit == 5 && (sticky || coefficient.low & 1 == 1)) {
                    coefficient = coefficient.adding(UInt256(1))
                    if coefficient == UInt256(powersOfTen[maxDigits]) {
                        coefficient = UInt256(powersOfTen[maxDigits - 1])
                        exponent += 1
                    }
                }
            }
        }
        // Fewer than 35 digits now; bring an exponent above the range down if digits allow.
        var value = coefficient.low
        if exponent > maxExponent {
            if value == 0 {
                exponent = maxExponent
            } else {
                while exponent > maxExponent && value <= maxCoefficient / 10 {
                    value *= 10
                    exponent -= 1
                }
                if exponent > maxExponent { return negative ? -.infinity : .infinity }
            }
        }
        return Decimal128(negative: negative, coefficient: value, exponent: exponent)
    }

    private static func decimalDigits(_ value: UInt128) -> Int { DecimalEncoding.decimalDigits(value) }

    // MARK: Parsing

    static func parse(_ string: String) -> Decimal128? {
        let utf8 = Array(string.utf8)
        var i = 0
        var negative = false
        if i < utf8.count, utf8[i] == UInt8(ascii: "-") || utf8[i] == UInt8(ascii: "+") {
            negative = utf8[i] == UInt8(ascii: "-")
            i += 1
        }
        switch String(decoding: utf8[i...], as: UTF8.self).lowercased() {
        case "nan": return .nan
        case "inf", "infinity": return negative ? -.infinity : .infinity
        default: break
        }
        func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }
        // Up to 38 significant digits are kept exactly; later ones only count and set `inexact`.
        var coefficient: UInt128 = 0
        var kept = 0, dropped = 0, fractionDigits = 0
        var sawDigit = false, sawPoint = false, inexact = false
        while i < utf8.count {
            let c = utf8[i]
            if c == UInt8(ascii: ".") {
                if sawPoint { return nil }
                sawPoint = true
            } else if isDigit(c) {
                sawDigit = true
                if sawPoint { fractionDigits += 1 }
                let digit = UInt128(c - UInt8(ascii: "0"))
                if kept < 38 {
                    coefficient = coefficient * 10 + digit
                    if coefficient != 0 { kept += 1 }
                } else {
                    dropped += 1
                    if digit != 0 { inexact = true }
                }
            } else {
                break
            }
            i += 1
        }
        guard sawDigit else { return nil }
        var exponent = 0
        if i < utf8.count, utf8[i] == UInt8(ascii: "e") || utf8[i] == UInt8(ascii: "E") {
            i += 1
            var exponentNegative = false
            if i < utf8.count, utf8[i] == UInt8(ascii: "-") || utf8[i] == UInt8(ascii: "+") {
                exponentNegative = utf8[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < utf8.count else { return nil }
            while i < utf8.count {
                guard isDigit(utf8[i]) else { return nil }
                // Beyond a million the value is infinite or zero anyway; stop growing there.
                exponent = Swift.min(exponent * 10 + Int(utf8[i] - UInt8(ascii: "0")), 1_000_000)
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        guard i == utf8.count else { return nil }
        return rounded(negative: negative, coefficient: UInt256(coefficient),
                       exponent: exponent - fractionDigits + dropped, inexact: inexact)
    }
}

// MARK: - Comparing

extension Decimal128: Comparable, Hashable {
    /// -1, 0 or 1 as `lhs` is less than, equal to or greater than `rhs`: numerically, with NaN
    /// first and NaNs ordered by their bits (Realm's order for sorting and queries, stated once,
    /// in ``DecimalEncoding/compare(_:_:)``).
    private static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int {
        DecimalEncoding.compare(lhs.bits, rhs.bits)
    }

    /// Whether the two values are numerically equal (`1.0 == 1.00`, `-0 == 0`); a NaN equals only
    /// a NaN with the same bits.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool { compare(lhs, rhs) == 0 }

    /// Whether the first value is numerically less than the second; NaN is less than any other
    /// value.
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool { compare(lhs, rhs) < 0 }

    /// Hashes the numeric value, so values equal under `==` hash alike whatever their exponents.
    public func hash(into hasher: inout Hasher) {
        switch unpacked {
        case .nan:
            hasher.combine(0 as UInt8)
            hasher.combine(bits)
        case .infinity(let negative):
            hasher.combine(negative ? 1 : 2 as UInt8)
        case .finite(let negative, var coefficient, var exponent):
            guard coefficient != 0 else { hasher.combine(3 as UInt8); return }
            while coefficient % 10 == 0 {
                coefficient /= 10
                exponent += 1
            }
            hasher.combine(4 as UInt8)
            hasher.combine(negative)
            hasher.combine(coefficient)
            hasher.combine(exponent)
        }
    }
}

// MARK: - Arithmetic

extension Decimal128: SignedNumeric {
    /// Zero.
    public static var zero: Decimal128 { Decimal128() }

    /// The sum, exact if it fits in 34 digits and otherwise rounded half to even.
    /// `infinity + -infinity` is NaN; a NaN operand gives NaN.
    public static func + (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.unpacked, rhs.unpacked) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity(let l), .infinity(let r)): return l == r ? lhs : .nan
        case (.infinity, _): return lhs
        case (_, .infinity): return rhs
        case (.finite(let ln, let lc, let le), .finite(let rn, let rc, let re)):
            return add(ln, lc, le, rn, rc, re)
        }
    }

    private static func add(_ ln: Bool, _ lc: UInt128, _ le: Int, _ rn: Bool, _ rc: UInt128, _ re: Int) -> Decimal128 {
        // (x: the operand with the larger exponent, y: the other.)
        let ((xn, xc, xe), (yn, yc, ye)) = le >= re ? ((ln, lc, le), (rn, rc, re)) : ((rn, rc, re), (ln, lc, le))
        if xc == 0 {
            // 0 + y is y, at the smaller exponent. A zero sum is positive unless both are -0.
            return rounded(negative: yc == 0 ? xn && yn : yn, coefficient: UInt256(yc), exponent: ye)
        }
        let shift = xe - ye
        let xDigits = decimalDigits(xc)
        if xDigits + shift <= 72 {
            // Exact: x's coefficient scaled to y's exponent has at most 72 digits.
            let x = UInt256(xc).multiplied(byPowerOfTen: shift)
            let y = UInt256(yc)
            if xn == yn {
                return rounded(negative: xn, coefficient: x.adding(y), exponent: ye)
            }
            if x == y { return rounded(negative: false, coefficient: UInt256(0), exponent: ye) }
            return x > y ? rounded(negative: xn, coefficient: x.subtracting(y), exponent: ye)
                         : rounded(negative: yn, coefficient: y.subtracting(x), exponent: ye)
        }
        // y (fewer than 35 digits) is below 10^-38 of x's last place once x has 36 digits: it only
        // nudges x up or down within its 36th digit, which decides no tie.
        let scale = 36 - xDigits
        let x = UInt256(xc).multiplied(byPowerOfTen: scale)
        if yc == 0 { return rounded(negative: xn, coefficient: x, exponent: xe - scale) }
        let nudged = xn == yn ? x : x.subtracting(UInt256(1))
        return rounded(negative: xn, coefficient: nudged, exponent: xe - scale, inexact: true)
    }

    /// The difference, `lhs + -rhs`.
    public static func - (lhs: Decimal128, rhs: Decimal128) -> Decimal128 { lhs + -rhs }

    /// The product, exact if it fits in 34 digits and otherwise rounded half to even.
    /// `infinity * 0` is NaN; a NaN operand gives NaN.
    public static func * (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.unpacked, rhs.unpacked) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity(let l), .infinity(let r)): return l != r ? -.infinity : .infinity
        case (.infinity(let l), .finite(let r, let c, _)), (.finite(let r, let c, _), .infinity(let l)):
            if c == 0 { return .nan }
            return l != r ? -.infinity : .infinity
        case (.finite(let ln, let lc, let le), .finite(let rn, let rc, let re)):
            let (high, low) = lc.multipliedFullWidth(by: rc)
            return rounded(negative: ln != rn, coefficient: UInt256(high: high, low: low), exponent: le + re)
        }
    }

    /// The quotient, exact if it fits in 34 digits (with the exponent closest to
    /// `lhs`'s minus `rhs`'s, so `6 / 2` is `3` and `1 / 4` is `0.25`) and otherwise rounded half
    /// to even to 34 digits (`1 / 3` is `0.3333333333333333333333333333333333`).
    /// A nonzero value divided by zero is a signed infinity; `0 / 0`, `infinity / infinity` and
    /// a NaN operand give NaN.
    public static func / (lhs: Decimal128, rhs: Decimal128) -> Decimal128 {
        switch (lhs.unpacked, rhs.unpacked) {
        case (.nan, _): return lhs.quieted
        case (_, .nan): return rhs.quieted
        case (.infinity, .infinity): return .nan
        case (.infinity(let l), .finite(let r, _, _)): return l != r ? -.infinity : .infinity
        case (.finite(let l, _, _), .infinity(let r)): return Decimal128(negative: l != r, coefficient: 0, exponent: 0)
        case (.finite(let ln, let lc, let le), .finite(let rn, let rc, let re)):
            let negative = ln != rn
            if rc == 0 { return lc == 0 ? .nan : negative ? -.infinity : .infinity }
            let preferred = le - re
            if lc == 0 { return rounded(negative: negative, coefficient: UInt256(0), exponent: preferred) }
            // Scale the dividend so the quotient has 35 or 36 digits: one more than is kept.
            let scale = decimalDigits(rc) + 35 - decimalDigits(lc)
            let dividend = UInt256(lc).multiplied(byPowerOfTen: scale)
            let (exactQuotient, remainder) = dividend.quotientAndRemainder(dividingBy: rc)
            var quotient = exactQuotient
            var exponent = preferred - scale
            if remainder != 0 {
                return rounded(negative: negative, coefficient: quotient, exponent: exponent, inexact: true)
            }
            // Exact: drop the trailing zeros the scaling added, back towards the preferred exponent.
            while exponent < preferred {
                let (shorter, digit) = quotient.quotientAndRemainder(dividingBy: 10)
                guard digit == 0 else { break }
                quotient = shorter
                exponent += 1
            }
            return rounded(negative: negative, coefficient: quotient, exponent: exponent)
        }
    }

    /// Adds `rhs` to `lhs`.
    public static func += (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs + rhs }

    /// Subtracts `rhs` from `lhs`.
    public static func -= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs - rhs }

    /// Multiplies `lhs` by `rhs`.
    public static func *= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs * rhs }

    /// Divides `lhs` by `rhs`.
    public static func /= (lhs: inout Decimal128, rhs: Decimal128) { lhs = lhs / rhs }

    /// The value with its sign flipped (also for zeros, infinities and NaN).
    public static prefix func - (operand: Decimal128) -> Decimal128 {
        Decimal128(bits: operand.bits ^ UInt128(1) << 127)
    }

    /// Flips the sign.
    public mutating func negate() { self = -self }

    /// The distance from this value to `other`: `other - self`.
    public func distance(to other: Decimal128) -> Decimal128 { other - self }

    /// This value offset by `n`: `self + n`.
    public func advanced(by n: Decimal128) -> Decimal128 { self + n }

    /// A NaN operand's result: the same NaN, quiet.
    private var quieted: Decimal128 { Decimal128(bits: bits & ~(UInt128(1) << 121)) }
}

extension Decimal128: _PersistableNonOptional {
    /// Zero.
    public static var _rlmDefaultValue: Decimal128 { Decimal128() }
    /// Stored as its 16 bytes.
    public static var _rlmType: _RealmPropertyType { _RealmPropertyType(kind: .decimal128, isOptional: false) }
    /// Reads the 16 bytes.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Decimal128 {
        let (leaf, row) = object.managedLocation()
        let bytes = leaf.fixed(row, column)
        guard bytes.count == 16 else { return _rlmDefaultValue }
        return Decimal128(storedBytes: bytes)
    }
    /// The stored form.
    public var _rlmValue: _RealmValue { _RealmValue(.fixed(storedBytes)) }
    /// From the stored form.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        guard case .fixed(let bytes) = stored.value, bytes.count == 16 else { return nil }
        return Self(storedBytes: bytes)
    }
}

// MARK: - 256-bit helper

/// An unsigned 256-bit integer with the few operations decimal arithmetic needs; callers keep
/// results in range (products of two coefficients, coefficients scaled by up to 10^72).
private struct UInt256: Equatable, Comparable {
    var high: UInt128
    var low: UInt128

    init(high: UInt128, low: UInt128) {
        self.high = high
        self.low = low
    }

    init(_ value: UInt128) {
        self.init(high: 0, low: value)
    }

    static func < (lhs: UInt256, rhs: UInt256) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }

    func adding(_ other: UInt256) -> UInt256 {
        let (low, carry) = low.addingReportingOverflow(other.low)
        return UInt256(high: high + other.high + (carry ? 1 : 0), low: low)
    }

    /// `self - other`, for `other <= self`.
    func subtracting(_ other: UInt256) -> UInt256 {
        let (low, borrow) = low.subtractingReportingOverflow(other.low)
        return UInt256(high: high - other.high - (borrow ? 1 : 0), low: low)
    }

    /// `self × m`, which must fit.
    func multiplied(by m: UInt128) -> UInt256 {
        let (carry, low) = low.multipliedFullWidth(by: m)
        return UInt256(high: high * m + carry, low: low)
    }

    /// `self × 10^n`, which must fit.
    func multiplied(byPowerOfTen n: Int) -> UInt256 {
        var result = self
        var remaining = n
        while remaining > 0 {
            let step = Swift.min(remaining, 38)
            result = result.multiplied(by: Decimal128.powerOfTen(step))
            remaining -= step
        }
        return result
    }

    /// Long division by a nonzero 128-bit divisor.
    func quotientAndRemainder(dividingBy divisor: UInt128) -> (quotient: UInt256, remainder: UInt128) {
        let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: divisor)
        let (lowQuotient, remainder) = divisor.dividingFullWidth((high: highRemainder, low: low))
        return (UInt256(high: highQuotient, low: lowQuotient), remainder)
    }

    /// The number of decimal digits (0 for zero).
    var decimalDigits: Int {
        var value = self
        var count = 0
        while value.high != 0 {
            value = value.quotientAndRemainder(dividingBy: Decimal128.powerOfTen(19)).quotient
            count += 19
        }
        var low = value.low
        while low != 0 {
            low /= 10
            count += 1
        }
        return count
    }
}

extension Decimal128 {
    /// 10^n for n in 0...38.
    fileprivate static func powerOfTen(_ n: Int) -> UInt128 { powersOfTen[n] }
}
