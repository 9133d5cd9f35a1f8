/// When to give the memory of free pages back to the system, in a map whose pages live in
/// anonymous memory (an in-memory database, the plaintext of an encrypted file).
///
/// # Why
///
/// A file mapping's pages belong to the kernel's page cache, which drops them under pressure.
/// Anonymous memory stays allocated until it is given back: without this, an encrypted file or
/// an in-memory database would keep the memory of every page it ever held, so deleting 90 % of
/// the objects would free no memory at all.
///
/// # Why it is safe
///
/// A page becomes reusable (`FreeList.release`) only when no pinned version, and no version a
/// crash could return to, reaches it. Until the writer reuses it (and stores its new contents
/// through `PageMap.store`), only a damaged pointer can read it, and a damaged pointer may read
/// anything. The runs to give back are computed when a write transaction begins, under the
/// database's state lock, against that transaction's reusable pages; they are given back before
/// the transaction is returned, so the writer cannot have reused them yet.
///
/// # Cost
///
/// Giving pages back is a system call, and the next use of each page a zero-filling fault.
/// Runs are therefore collected until they hold ``threshold`` pages and given back together,
/// minus those reused meanwhile: steady update churn, which frees and reuses a few pages per
/// commit, gives back 4 MiB now and then; a large delete gives its pages back at the next
/// write. At most ``threshold`` pages of free memory stay allocated beyond that.
///
/// A value type guarded by the database's state lock.
struct FreePageMemory {
    /// Pages collected before they are given back: 4 MiB.
    static let threshold: UInt64 = 1024
    private var collected: [PageRun] = []
    private var collectedPages: UInt64 = 0

    /// Notes `ripe`, the runs a write transaction found newly reusable; returns the runs whose
    /// memory to give back now (sorted, coalesced), those of the collected runs still in
    /// `reusable` (the transaction's reusable pages, sorted and coalesced), once there are
    /// enough.
    ///
    /// - Complexity: O(collected runs + reusable runs) when it gives back, O(ripe) otherwise.
    mutating func note(ripe: [PageRun], reusable: [PageRun]) -> [PageRun] {
        for run in ripe {
            collected.append(run)
            collectedPages += run.count
        }
        guard collectedPages >= Self.threshold else { return [] }
        let release = FreeList.intersection(Self.union(collected), reusable)
        collected = []
        collectedPages = 0
        return release
    }

    /// `runs` sorted and merged where they touch or overlap: a page freed, reused and freed
    /// again is collected twice.
    static func union(_ runs: [PageRun]) -> [PageRun] {
        var result: [PageRun] = []
        for run in runs.sorted(by: { $0.start < $1.start }) where run.count > 0 {
            if let last = result.last, last.end >= run.start {
                result[result.count - 1].count = max(last.end, run.end) - last.start
            } else {
                result.append(run)
            }
        }
        return result
    }
}
