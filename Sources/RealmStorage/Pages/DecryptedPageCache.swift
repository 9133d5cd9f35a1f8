import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The plaintext of an encrypted file's pages, decrypted on first read: what `PageMap` hands to
/// readers instead of the mapped file.
///
/// # How it works
///
/// `PageMap` reserves anonymous memory laid out exactly like the file (page *n* at
/// `n × 4096` from the start of its section), and this type keeps one *ready* flag per page.
/// `PageMap.pointer(n)` returns the page's address once its flag is set; the first reader of a
/// page reads the stored page (or run) with `pread`, decrypts it in a scratch buffer, checks its
/// tag and copies it into place (``decrypt(_:at:flag:)``), then sets the flag. The writer, which has the plaintext of every
/// page it writes, stores it straight into place (``store(_:byteCount:atPage:address:)``): a
/// page read right after its commit is never decrypted.
///
/// # Why a page's memory may be handed out without a lock
///
/// Pages of a version never change, and the writer reuses a page number only when no pinned
/// version can reach it (the free list's rule). So while any reader can reach page *n*, its
/// plaintext stays put: the flag goes from clear to set once per reuse, and the plaintext under a
/// set flag is written before the flag (release) and read after it (acquire). The only writes to
/// a page's memory are its decryption (under its stripe lock, before its flag is set) and the
/// writer's store of a new page at a number nobody can reach; both take the page's stripe lock,
/// so a read of a free page through a damaged pointer cannot interleave with the writer's store.
///
/// A page whose tag fails is never written into place (it could be a damaged pointer into the
/// middle of a valid run): the reader gets ``rejectedPage``, all zeros, which every reader takes
/// for a damaged page (kind 0), and the flag stays clear, so the next read checks again.
///
/// # Memory
///
/// A decrypted page stays resident while a version that a reader pins, or the newest version,
/// reaches it; once its page is free and reusable, its memory is given back to the system within
/// 4 MiB of such pages (``FreePageMemory``). So the cache holds at most the live pages that were
/// read, plus the pages only pinned versions reach, plus 4 MiB: the same bound as the resident
/// part of an unencrypted file's mapping, but in anonymous memory, which the kernel cannot drop
/// and read again. A smaller bound would need every cached leaf pointer (objects, results) to be
/// re-checked on each read, which the cost model of a property read rules out.
///
/// Thread safety (`@unchecked Sendable`): the flag table's slots are written once, under the
/// database's state lock (through `PageMap.ensureMapped`), before any version referencing their
/// pages is published; flags are atomics; page memory follows the rules above.
final class DecryptedPageCache: @unchecked Sendable {
    let cipher: PageCipher
    private let descriptor: Int32
    /// Per map section, one ready flag per page (nil until the section is mapped).
    typealias Flags = UnsafeMutablePointer<UnsafeMutablePointer<Atomic<UInt8>>?>
    let flags: Flags
    private var flaggedSections = 0
    /// Serialize the decryption and the storing of pages that share a stripe.
    private let stripes: [Stripe]
    /// The longest run a page header may claim: an overflow run of the largest value.
    private static let maximumRunPages = OverflowRun.pages(forLength: StorageLimits.maximumValueLength)

    private final class Stripe: Sendable {
        let lock = Lock(())
    }

    /// What a reader gets for a page that fails authentication: zeros, which no reader accepts
    /// as a page (kind 0). Four pages, the widest table leaf. Allocated once, never written
    /// after initialization, never freed.
    // nonisolated(unsafe): the memory is written only while this lazy global is initialized
    // (which Swift runs once, thread-safely) and only read afterwards.
    nonisolated(unsafe) static let rejectedPage: UnsafeRawPointer = {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: 4 * PageLayout.pageSize, alignment: PageLayout.pageSize)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: 4 * PageLayout.pageSize)
        return UnsafeRawPointer(pointer)
    }()

    init(cipher: PageCipher, descriptor: Int32) {
        self.cipher = cipher
        self.descriptor = descriptor
        flags = .allocate(capacity: PageMap.maximumSections)
        flags.initialize(repeating: nil, count: PageMap.maximumSections)
        stripes = (0..<64).map { _ in Stripe() }
    }

    deinit {
        for index in 0..<flaggedSections {
            // Pointer ownership: allocated and initialized in `addSection`, freed only here.
            flags[index]?.deinitialize(count: Int(PageMap.pagesPerSection))
            flags[index]?.deallocate()
        }
        flags.deallocate()
    }

    /// Adds the flags of the next section. Call under the database's state lock.
    func addSection() {
        let count = Int(PageMap.pagesPerSection)
        let section = UnsafeMutablePointer<Atomic<UInt8>>.allocate(capacity: count)
        for index in 0..<count { (section + index).initialize(to: Atomic(0)) }
        flags[flaggedSections] = section
        flaggedSections += 1
    }

    /// The ready flag of `page` in `flags`. The page's section must be mapped.
    @inline(__always)
    static func flag(_ page: PageNumber, in flags: Flags) -> UnsafeMutablePointer<Atomic<UInt8>> {
        let (section, index) = PageMap.location(of: page)
        return flags[section].unsafelyUnwrapped + index
    }

    @inline(__always)
    private func flag(_ page: PageNumber) -> UnsafeMutablePointer<Atomic<UInt8>> { Self.flag(page, in: flags) }

    @inline(__always)
    private func stripe(_ page: PageNumber) -> Stripe { stripes[Int(truncatingIfNeeded: page & 63)] }

    /// The plaintext of the page at `address` (its place in the map), whose ready `flag` a reader
    /// found clear: decrypts it unless another reader did meanwhile; ``rejectedPage`` if it fails
    /// authentication or cannot be read.
    func decrypt(_ page: PageNumber, at address: UnsafeRawPointer, flag: UnsafeMutablePointer<Atomic<UInt8>>) -> UnsafeRawPointer {
        // The map's memory for this page is writable (anonymous) and unreachable by readers
        // until the flag is set (see the type's comment).
        let target = UnsafeMutableRawPointer(mutating: address)
        let decrypted = stripe(page).lock.withLock { _ -> Bool in
            if flag.pointee.load(ordering: .acquiring) != 0 { return true }
            guard decrypt(page, into: target) else { return false }
            flag.pointee.store(1, ordering: .releasing)
            return true
        }
        return decrypted ? address : Self.rejectedPage
    }

    /// Reads, authenticates and decrypts the page or run at `page` into `target`; false, with
    /// `target` untouched, if it cannot be read or is not authentic.
    private func decrypt(_ page: PageNumber, into target: UnsafeMutableRawPointer) -> Bool {
        var stored = UnsafeMutableRawPointer.allocate(byteCount: PageLayout.pageSize, alignment: PageLayout.pageSize)
        defer { stored.deallocate() }
        guard read(into: stored, pages: 1, at: page) else { return false }
        var pages: UInt64 = 1
        if page >= PageLayout.firstDataPage {
            var header = (UInt64(0), UInt64(0), UInt64(0))
            pages = withUnsafeMutableBytes(of: &header) { raw in
                cipher.peekHeader(stored, page: page, into: raw.baseAddress!)
                return UnsafeRawPointer(raw.baseAddress!).runPages
            }
            // An untrusted length: one that cannot be a run here fails now, before a read.
            guard pages <= Self.maximumRunPages, PageMap.isContiguous(page: page, count: pages) else { return false }
        }
        if pages > 1 {
            // The first page is read already: keep it, read the rest of the run after it.
            let run = UnsafeMutableRawPointer.allocate(byteCount: Int(pages) * PageLayout.pageSize, alignment: PageLayout.pageSize)
            run.copyMemory(from: stored, byteCount: PageLayout.pageSize)
            stored.deallocate()
            stored = run
            guard read(into: stored + PageLayout.pageSize, pages: pages - 1, at: page + 1) else { return false }
        }
        // Decrypted in the scratch buffer first: a page that fails its tag must never reach
        // `target` (it could be a damaged pointer into the middle of a valid run).
        let length = Int(pages) * PageLayout.pageSize
        guard cipher.open(stored, length: length, page: page) else {
            stored.initializeMemory(as: UInt8.self, repeating: 0, count: length)
            return false
        }
        target.copyMemory(from: stored, byteCount: length)
        stored.initializeMemory(as: UInt8.self, repeating: 0, count: length)
        return true
    }

    /// `pread` of whole pages, retrying short reads; false at the end of the file or on error.
    private func read(into buffer: UnsafeMutableRawPointer, pages: UInt64, at page: PageNumber) -> Bool {
        let length = Int(pages) * PageLayout.pageSize
        var done = 0
        while done < length {
            let count = pread(descriptor, buffer + done, length - done, off_t((page << PageLayout.pageShift) + UInt64(done)))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            done += count
        }
        return true
    }

    /// Puts the plaintext of a page (or run) the writer is writing at `page` into place
    /// (`address`), ready to read. Only for pages no reader can reach (being written by a
    /// commit not yet published).
    func store(_ source: UnsafeRawPointer, byteCount: Int, atPage page: PageNumber, address: UnsafeMutableRawPointer) {
        stripe(page).lock.withLock { _ in
            address.copyMemory(from: source, byteCount: byteCount)
            flag(page).pointee.store(1, ordering: .releasing)
        }
    }

    /// Makes the next read of pages `page..<page + count` decrypt them from the file again: after
    /// the writer rewrote a page it did not store (a meta page), and for free pages whose memory
    /// the map is about to give back (see ``FreePageMemory``), so that a read through a damaged
    /// pointer decrypts them rather than trusting whatever the memory then holds.
    func invalidate(_ page: PageNumber, count: UInt64 = 1) {
        for number in page..<(page + count) {
            stripe(number).lock.withLock { _ in flag(number).pointee.store(0, ordering: .releasing) }
        }
    }
}
