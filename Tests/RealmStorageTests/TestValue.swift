import RealmTestSupport

/// A value whose bytes are derived from the key and a version, so any mix-up is visible.
func testValue(key: UInt64, version: UInt64, length: Int) -> [UInt8] {
    var generator = SplitMix64(seed: key &* 31 &+ version)
    return (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
}
