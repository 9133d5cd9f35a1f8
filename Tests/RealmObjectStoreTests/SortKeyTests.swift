import Testing
@testable import RealmObjectStore

@Suite struct SortKeyTests {
    /// Radix selection finds what a full sort puts at k, on random data with many duplicates,
    /// values spread over all 64 bits (several rounds), sorted and reversed inputs, and one
    /// repeated value.
    @Test func kthSmallestAgreesWithSorting() {
        var state: UInt64 = 7
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 33 }
        let inputs: [[UInt64]] = [
            (0..<1000).map { _ in next() % 50 }, (0..<1000).map { _ in next() },
            (0..<1000).map { _ in next() << 33 | next() }, (0..<1000).map { _ in next() % 3 | UInt64.max << 62 }, Array(0..<500), Array((0..<500).reversed()),
            Array(repeating: 3, count: 300), [9], [2, 1],
        ]
        for input in inputs {
            let sorted = input.sorted()
            for k in Set([0, input.count / 3, input.count / 2, input.count - 1]) {
                #expect(SortKeyColumn.kthSmallest(input, k) == sorted[k], "k = \(k) of \(input.count)")
            }
        }
    }

    /// Keys order numbers as their values: negative before positive, -0.0 with 0.0, infinities last.
    @Test func keysPreserveNumericOrder() {
        let ints: [Int64] = [.min, -5, -1, 0, 1, 7, .max]
        #expect(zip(ints, ints.dropFirst()).allSatisfy { SortKeyColumn.key(int: $0) < SortKeyColumn.key(int: $1) })
        let doubles: [Double] = [-.infinity, -1e300, -2.5, -1e-300, 0, 1e-300, 2.5, 1e300, .infinity]
        #expect(zip(doubles, doubles.dropFirst()).allSatisfy { SortKeyColumn.key(double: $0) < SortKeyColumn.key(double: $1) })
        #expect(SortKeyColumn.key(double: -0.0) == SortKeyColumn.key(double: 0))
    }
}
