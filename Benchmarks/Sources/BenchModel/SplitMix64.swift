/// A seeded pseudo-random generator (SplitMix64, Steele, Lea & Flood 2014).
///
/// Benchmarks need the same data on every run, on every machine and for both sides of a
/// comparison, so nothing here may depend on the standard library's `random(in:using:)`
/// algorithms, which are free to change between Swift releases. Every derived value (bounded
/// integers, doubles, letters) is computed by this type's own methods.
///
/// Invariant: the sequence of outputs is a pure function of the seed.
package struct SplitMix64: Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 uniformly distributed bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound` (multiply-high reduction: the bias, at most bound / 2^64, is
    /// irrelevant for benchmark data and keeps the number of draws per value fixed at one).
    package mutating func next(below bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive")
        return Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A value in `0..<1` with 53 random bits.
    package mutating func nextUnitDouble() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// `count` random lowercase ASCII letters appended to `string`.
    package mutating func appendLetters(_ count: Int, to string: inout String) {
        for _ in 0..<count {
            string.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "a") + UInt8(next(below: 26))))
        }
    }
}
