// Pins (see `LockFileLayout.slotRangeLowOffset`): each process mirrors the versions its readers pin
// into its slot, and a writer reads every slot's before it reuses a page (`PinSet`).
extension LockFile {
    /// Mirrors `version` into this process's slot, where every writer sees it: called for its first
    /// local pin. An exact entry while the slot has one free, else the slot's range widens to
    /// cover it. Precondition: the caller serializes this process's pin changes (`Database`'s
    /// state lock) and `version` is nonzero.
    ///
    /// - Complexity: O(exact entries): one shared store per *distinct* pinned version.
    package func mirrorPin(_ version: TransactionID) {
        guard let base = ownSlotOffset() else { return }
        for entry in 0..<LockFileLayout.exactPinsPerSlot {
            let offset = base + LockFileLayout.slotExactPinsOffset + 8 * entry
            if word(at: offset) == 0 {
                setWord(version, at: offset)
                return
            }
        }
        let low = word(at: base + LockFileLayout.slotRangeLowOffset), high = word(at: base + LockFileLayout.slotRangeHighOffset)
        setWord(max(high, version), at: base + LockFileLayout.slotRangeHighOffset)
        setWord(low == 0 ? version : min(low, version), at: base + LockFileLayout.slotRangeLowOffset)
    }

    /// Withdraws `version` from this process's slot: its last local pin went. `remaining` are the
    /// versions this process still pins (a range shrinks to those of them it covers).
    /// Precondition: as ``mirrorPin(_:)``.
    ///
    /// - Complexity: O(exact entries), or O(`remaining`) for a version in the range.
    package func withdrawPin(_ version: TransactionID, remaining: some Collection<TransactionID>) {
        guard let base = ownSlotOffset() else { return }
        var exact: Set<TransactionID> = []
        for entry in 0..<LockFileLayout.exactPinsPerSlot {
            let offset = base + LockFileLayout.slotExactPinsOffset + 8 * entry
            let pinned = word(at: offset)
            if pinned == version {
                setWord(0, at: offset)
                return
            }
            exact.insert(pinned)
        }
        let ranged = remaining.filter { !exact.contains($0) && $0 != version }
        setWord(ranged.min() ?? 0, at: base + LockFileLayout.slotRangeLowOffset)
        setWord(ranged.max() ?? 0, at: base + LockFileLayout.slotRangeHighOffset)
    }

    /// The versions the other attached processes pin. Slots are read without the control lock:
    /// a slot being claimed publishes its state after its pins, and the pins of a process that
    /// died count until its slot is cleared (at the next attach) — late, never early.
    ///
    /// - Complexity: O(slots claimed this session + their pins); no system call.
    package func otherProcessesPins() -> PinSet {
        guard hasMapping else { return [] }
        let own = ownSlotOffset()
        var exact: [TransactionID] = []
        var ranges: [ClosedRange<TransactionID>] = []
        for slot in 0..<slotsInUse {
            let base = slotOffset(slot)
            guard base != own, word(at: base + LockFileLayout.slotStateOffset) != LockFileLayout.SlotState.free.rawValue else { continue }
            for entry in 0..<LockFileLayout.exactPinsPerSlot {
                let pinned = word(at: base + LockFileLayout.slotExactPinsOffset + 8 * entry)
                if pinned != 0 { exact.append(pinned) }
            }
            let low = word(at: base + LockFileLayout.slotRangeLowOffset), high = word(at: base + LockFileLayout.slotRangeHighOffset)
            if low != 0 { ranges.append(low...max(low, high)) }
        }
        return PinSet(exact: exact, ranges: ranges)
    }

    /// The slots claimed in this session so far: a slot at or past this number was never used.
    var slotsInUse: Int { Int(min(word(at: LockFileLayout.slotHighWaterOffset), UInt64(LockFileLayout.slotCount))) }
}
