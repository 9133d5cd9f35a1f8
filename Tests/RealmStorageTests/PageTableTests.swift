import Testing
@testable import RealmStorage
import RealmTestSupport

/// `PageTable`, the open-addressing map of a transaction's pages, against a `Dictionary` model.
@Suite struct PageTableTests {
    /// A page to store: its pointer is never dereferenced, only compared (a distinct fake
    /// address per value).
    static func page(_ value: Int) -> DirtyPage {
        DirtyPage(pointer: UnsafeMutableRawPointer(bitPattern: 0x1000 + value * 16)!, pages: value % 4 + 1)
    }

    /// Random insertions, replacements, removals and lookups, with page numbers drawn from a
    /// small range (dense runs, as a transaction allocates them) or far apart (collisions of
    /// the top bits): after every step, every number in play maps as the model does.
    @Test(arguments: 0..<24) func behavesLikeADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = PageTable()
        var model: [PageNumber: Int] = [:]
        let spread: PageNumber = seed % 3 == 0 ? 1 << 40 : 300
        var used: [PageNumber] = []
        for step in 0..<3_000 {
            let number = Bool.random(using: &random) || used.isEmpty
                ? PageNumber.random(in: 0..<spread, using: &random) : used.randomElement(using: &random)!
            used.append(number)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                table[number] = Self.page(step)
                model[number] = step
            case 5..<8:
                #expect(table.removeValue(forKey: number)?.pointer == model.removeValue(forKey: number).map { Self.page($0).pointer })
            default:
                #expect(table[number]?.pointer == model[number].map { Self.page($0).pointer })
            }
            #expect(table.count == model.count)
            if step % 250 == 0 {
                for number in used { #expect(table[number]?.pointer == model[number].map { Self.page($0).pointer }) }
                #expect(Set(table.map(\.number)) == Set(model.keys))
            }
        }
        for (number, step) in model { #expect(table[number]?.pages == Self.page(step).pages) }
        #expect(Array(table).count == model.count)
    }

    /// Removing every entry, in an order unrelated to insertion, leaves an empty table that
    /// finds nothing and takes entries again.
    @Test func emptiesAndRefills() {
        var table = PageTable()
        #expect(table[7] == nil && table.removeValue(forKey: 7) == nil && table.isEmpty)
        for number in 0..<1_000 as Range<PageNumber> { table[number * 7] = Self.page(Int(number)) }
        for number in (0..<1_000 as Range<PageNumber>).reversed() where number % 2 == 0 { table[number * 7] = nil }
        for number in 0..<1_000 as Range<PageNumber> where number % 2 == 1 {
            #expect(table.removeValue(forKey: number * 7)?.pointer == Self.page(Int(number)).pointer)
        }
        var iterator = table.makeIterator()
        #expect(table.isEmpty && table[7] == nil && iterator.next() == nil)
        table[7] = Self.page(3)
        #expect(table[7]?.pointer == Self.page(3).pointer && table.count == 1)
    }
}
