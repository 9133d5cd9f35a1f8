/// Comparisons whose running time does not depend on the bytes compared.
package enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. The lengths are public (a MAC's length is fixed):
    /// different lengths return false at once. Otherwise every byte of both is read and the
    /// differences are ORed together, with no branch until the end, so the time does not tell
    /// where the first difference is — an early exit would let an attacker who can submit forged
    /// pages learn a valid MAC one byte at a time.
    @inline(never)  // a separate function is the optimizer's unit: nothing of the caller's can shortcut the loop
    package static func equals(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
