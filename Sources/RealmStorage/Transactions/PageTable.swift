/// The pages a write transaction has written (or a prepared commit holds), by page number.
///
/// Every page read inside a write transaction asks first whether the transaction owns a copy of
/// it (``WriteTransaction/page(_:)``), several times per inserted object: a tree descent reads
/// a page per level. A `Dictionary` answered with SipHash — about 20 ns, 5–7 % of a bulk insert
/// (W1) in `perf`. Page numbers are not chosen by an adversary, so a multiplicative hash is
/// enough, and this table answers with one multiplication, one shift and, at the load factor it
/// keeps, one or two probes.
///
/// Open addressing with linear probing in a power-of-two array of slots; a slot without a page
/// is empty. Removal shifts the following entries of the probe run back (no tombstones), so a
/// lookup stops at the first empty slot.
///
/// Invariants: `slots.count` is a power of two, at least 16 once anything was inserted;
/// `count <= slots.count * 3 / 4`; every entry lies in the probe run that starts at its home
/// slot (`home(number)`), with no empty slot between the two.
struct PageTable: Sequence {
    private struct Slot {
        var number: PageNumber = 0
        var page: DirtyPage?
    }

    private var slots: [Slot] = []
    /// `64 - log2(slots.count)`: the hash's top bits index the slots.
    private var shift: UInt64 = 64
    /// The number of pages in the table.
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The slot where `number`'s probe run starts (Fibonacci hashing: the top bits of the
    /// number times 2^64/φ spread consecutive page numbers over the table).
    @inline(__always)
    private func home(_ number: PageNumber) -> Int {
        Int(truncatingIfNeeded: (number &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The page stored under `number`, if any; assigning nil removes it.
    ///
    /// - Complexity: O(1) on average.
    subscript(number: PageNumber) -> DirtyPage? {
        @inline(__always) get {
            guard count > 0 else { return nil }
            return slots.withUnsafeBufferPointer { slots in
                let mask = slots.count - 1
                var index = home(number)
                while let page = slots[index].page {
                    if slots[index].number == number { return page }
                    index = (index + 1) & mask
                }
                return nil
            }
        }
        set {
            if let newValue { insert(newValue, at: number) } else { _ = removeValue(forKey: number) }
        }
    }

    /// Stores `page` under `number`, replacing what was there.
    mutating func insert(_ page: DirtyPage, at number: PageNumber) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var index = home(number)
        while slots[index].page != nil {
            if slots[index].number == number {
                slots[index].page = page
                return
            }
            index = (index + 1) & mask
        }
        slots[index] = Slot(number: number, page: page)
        count += 1
    }

    /// Removes and returns the page stored under `number`, if any.
    mutating func removeValue(forKey number: PageNumber) -> DirtyPage? {
        guard count > 0 else { return nil }
        let mask = slots.count - 1
        var index = home(number)
        while true {
            guard slots[index].page != nil else { return nil }
            if slots[index].number == number { break }
            index = (index + 1) & mask
        }
        let removed = slots[index].page
        // Backward shift: move each later entry of the run into the hole unless its home lies
        // cyclically after the hole (then the hole does not sit on its probe path).
        var hole = index
        var next = (hole + 1) & mask
        while slots[next].page != nil {
            let wanted = home(slots[next].number)
            let distanceToNext = (next - wanted) & mask
            let distanceToHole = (hole - wanted) & mask
            if distanceToHole < distanceToNext {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Slot()
        count -= 1
        return removed
    }

    /// Doubles the slots (16 at first) and puts every entry back.
    private mutating func grow() {
        let old = slots
        let capacity = Swift.max(16, old.count * 2)
        slots = Array(repeating: Slot(), count: capacity)
        shift = UInt64(64 - capacity.trailingZeroBitCount)
        count = 0
        for slot in old { if let page = slot.page { insert(page, at: slot.number) } }
    }

    /// Every `(number, page)`, in no particular order.
    func makeIterator() -> some IteratorProtocol<(number: PageNumber, page: DirtyPage)> {
        slots.lazy.compactMap { slot in slot.page.map { (slot.number, $0) } }.makeIterator()
    }
}
