import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The memory through which every page is read: the file mapped read-only, anonymous memory
/// for an in-memory database, or, for an encrypted file, anonymous memory into which pages are
/// decrypted on first read (`DecryptedPageCache`).
///
/// The address space is cut into fixed 1 GiB sections, each mapped once and never unmapped or
/// moved until the database closes. A growing file therefore never invalidates a pointer that an
/// old snapshot holds: new sections are added beside the old ones. Finding a page costs a shift,
/// a load from the section table and an add.
///
/// A file mapping is read-only (`PROT_READ`): pages reach the file only through `pwritev`, so a
/// stray pointer write cannot corrupt the database. Anonymous sections are writable because
/// there the map *is* the storage (in memory) or the plaintext of the storage (encrypted). A
/// read-only open that replays the write-ahead log into memory maps the file *privately*
/// (copy-on-write: what is stored never reaches the file) and writable, with anonymous memory
/// past the file's end, where a file mapping would fault.
///
/// Thread safety (`@unchecked Sendable`): a section slot is written once, under the database's
/// state lock, before any version that references its pages is published; readers pin a version
/// under that same lock, which orders their later section reads after the write.
package final class PageMap: @unchecked Sendable {
    package static let sectionShift: UInt64 = 30
    package static let pagesPerSection: UInt64 = 1 << (sectionShift - PageLayout.pageShift)
    static let sectionBytes = 1 << Int(sectionShift)
    static let maximumSections = 4096  // 4 TiB of pages

    /// For an encrypted file: its pages' plaintext and who decrypts them.
    let decryption: DecryptedPageCache?
    /// How to find a page, as plain values (see ``PageAddressing``).
    package let addressing: PageAddressing
    private let sections: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private var mappedSections = 0
    /// The file descriptor, or -1 for anonymous memory.
    private let descriptor: Int32
    /// For a private map (see the type's documentation): the file's length, past which sections
    /// are anonymous memory. Nil for every other map.
    private let privateFileBytes: UInt64?

    package var isAnonymous: Bool { descriptor < 0 }
    /// Whether pages are put in place through memory (``store(_:byteCount:atPage:)``) rather than
    /// read from the file: in memory, for an encrypted file, and in a private map.
    package var isStoredThrough: Bool { descriptor < 0 || decryption != nil || privateFileBytes != nil }

    /// A map of the file open as `descriptor` (-1: anonymous memory, an in-memory database),
    /// decrypting its pages with `cipher` if it is encrypted. With `privateFileBytes` (the
    /// file's length, which must not change), an unencrypted file is mapped privately, so that
    /// replayed pages can be stored into the map without writing the file.
    package init(descriptor: Int32, cipher: PageCipher? = nil, privateFileBytes: UInt64? = nil) {
        self.descriptor = descriptor
        self.privateFileBytes = cipher == nil ? privateFileBytes : nil
        decryption = cipher.map { DecryptedPageCache(cipher: $0, descriptor: descriptor) }
        sections = .allocate(capacity: Self.maximumSections)
        sections.initialize(repeating: nil, count: Self.maximumSections)
        addressing = PageAddressing(sections: UnsafePointer(sections), readyFlags: decryption?.flags,
                                    decryption: decryption.map { Unmanaged.passUnretained($0) })
    }

    deinit {
        for index in 0..<mappedSections {
            if let base = sections[index] { munmap(base, Self.sectionBytes) }
        }
        sections.deallocate()
    }

    /// Maps every section needed to read pages `0..<pageCount`. Call under the state lock.
    package func ensureMapped(pageCount: UInt64) throws {
        let needed = Int((pageCount + Self.pagesPerSection - 1) / Self.pagesPerSection)
        guard needed <= Self.maximumSections else {
            throw StorageError(.outOfDiskSpace, "The realm file would exceed the 4 TiB limit")
        }
        while mappedSections < needed {
            let offset = off_t(mappedSections) << off_t(Self.sectionShift)
            let base: UnsafeMutableRawPointer?
            if descriptor < 0 || decryption != nil {
                base = mmap(nil, Self.sectionBytes, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
            } else if let fileBytes = privateFileBytes {
                base = mmap(nil, Self.sectionBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE, descriptor, offset)
                // Past the file's end a file mapping faults (SIGBUS): anonymous memory goes there.
                let start = UInt64(offset)
                let filePart = fileBytes > start ? (fileBytes - start + UInt64(PageLayout.pageSize) - 1) & ~UInt64(PageLayout.pageSize - 1) : 0
                if let base, base != MAP_FAILED, filePart < UInt64(Self.sectionBytes) {
                    let tail = mmap(base + Int(filePart), Self.sectionBytes - Int(filePart), PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0)
                    guard tail != MAP_FAILED else {
                        let code = errno
                        munmap(base, Self.sectionBytes)
                        throw StorageError.fromErrno(code, "Could not map the realm file", path: nil)
                    }
                }
            } else {
                base = mmap(nil, Self.sectionBytes, PROT_READ, MAP_SHARED, descriptor, offset)
            }
            guard let base, base != MAP_FAILED else {
                throw StorageError.fromErrno(errno, "Could not map the realm file", path: nil)
            }
            #if os(Linux)
            if decryption != nil {
                // An encrypted file's plaintext stays out of core dumps. Advisory: a kernel that
                // refuses it still gets a working map.
                _ = madvise(base, Self.sectionBytes, MADV_DONTDUMP)
            }
            #endif
            sections[mappedSections] = base
            mappedSections += 1
            decryption?.addSection()
        }
    }

    /// The address of a page (decrypted first, in an encrypted file). The caller guarantees the
    /// page is below a published page count.
    @inline(__always)
    package func pointer(_ page: PageNumber) -> UnsafeRawPointer { addressing.pointer(page) }

    @inline(__always)
    private func address(_ page: PageNumber) -> UnsafeMutableRawPointer { addressing.address(page) }

    /// Which section holds `page`, and its index among the section's pages: the one place the
    /// map's layout is computed (addresses, ready flags).
    @inline(__always)
    static func location(of page: PageNumber) -> (section: Int, index: Int) {
        (Int(truncatingIfNeeded: page >> (sectionShift - PageLayout.pageShift)),
         Int(truncatingIfNeeded: page & (pagesPerSection - 1)))
    }

    /// Puts a page or run in place through memory: the in-memory database's "write", and an
    /// encrypted file's plaintext of a page being written. Only for pages no reader can reach.
    package func store(_ source: UnsafeRawPointer, byteCount: Int, atPage page: PageNumber) {
        precondition(isStoredThrough, "only anonymous maps are written through memory")
        if let decryption {
            decryption.store(source, byteCount: byteCount, atPage: page, address: address(page))
        } else {
            address(page).copyMemory(from: source, byteCount: byteCount)
        }
    }

    /// Gives the memory of free pages back to the system, in an anonymous map; their next read
    /// finds zeros (in memory) or decrypts them again (encrypted). Only for pages no reader can
    /// reach (see ``FreePageMemory``). `runs` must lie below the mapped page count.
    package func giveBackMemory(of runs: [PageRun]) {
        precondition(isStoredThrough, "only anonymous maps hold the memory of their pages")
        for run in runs {
            var page = run.start
            let end = run.start + run.count
            while page < end {
                // madvise one section's part of the run at a time: sections are not adjacent.
                let sectionEnd = (page / Self.pagesPerSection + 1) * Self.pagesPerSection
                let count = min(end, sectionEnd) - page
                decryption?.invalidate(page, count: count)
                #if canImport(Darwin)
                _ = madvise(address(page), Int(count) << Int(PageLayout.pageShift), MADV_FREE)
                #else
                _ = madvise(address(page), Int(count) << Int(PageLayout.pageShift), MADV_DONTNEED)
                #endif
                page += count
            }
        }
    }

    /// How many of pages `0..<pageCount` have memory in the process (`mincore`): for an
    /// anonymous map, the memory the database holds (tests and diagnostics).
    ///
    /// - Complexity: O(`pageCount`).
    package func residentPageCount(below pageCount: UInt64) -> Int {
        var resident = 0
        // mincore's vector is `char *` on Apple platforms, `unsigned char *` on Linux.
        #if canImport(Darwin)
        var vector = [CChar](repeating: 0, count: Int(Self.pagesPerSection))
        #else
        var vector = [UInt8](repeating: 0, count: Int(Self.pagesPerSection))
        #endif
        let sectionCount = min(mappedSections, Int((pageCount + Self.pagesPerSection - 1) / Self.pagesPerSection))
        for section in 0..<sectionCount {
            let pages = Int(min(Self.pagesPerSection, pageCount - UInt64(section) * Self.pagesPerSection))
            guard let base = sections[section],
                  mincore(base, pages << Int(PageLayout.pageShift), &vector) == 0 else { continue }
            resident += vector.prefix(pages).reduce(0) { $0 + Int($1 & 1) }
        }
        return resident
    }

    /// Whether a run of `count` pages starting at `page` lies inside one section, so it is
    /// contiguous in memory (overflow values are read in place).
    package static func isContiguous(page: PageNumber, count: UInt64) -> Bool {
        page / pagesPerSection == (page + count - 1) / pagesPerSection
    }
}

/// Where a page is, as plain values copied out of a `PageMap`: its section table and, for an
/// encrypted file, the ready flags and the decrypting cache. Transactions keep a copy, so that
/// reading a page is arithmetic and loads, with no reference counting — reaching the map through
/// `database.map` made the compiler retain and release it around every access once the access
/// could call the decryption slow path (a warm W3 scan was 50 % slower).
///
/// Safety (`@unchecked Sendable`): the pointers and the unretained cache belong to the map,
/// which lives until its database is released; every holder of a `PageAddressing` holds the
/// database (a transaction does), so they outlive every use. The section table and flags are
/// read under the rules `PageMap` and `DecryptedPageCache` state.
package struct PageAddressing: @unchecked Sendable {
    let sections: UnsafePointer<UnsafeMutableRawPointer?>
    let readyFlags: DecryptedPageCache.Flags?
    let decryption: Unmanaged<DecryptedPageCache>?

    /// The address of a page's plaintext (decrypted first, in an encrypted file, if no one has).
    @inline(__always)
    package func pointer(_ page: PageNumber) -> UnsafeRawPointer {
        let address = UnsafeRawPointer(self.address(page))
        guard let readyFlags else { return address }
        let flag = DecryptedPageCache.flag(page, in: readyFlags)
        if flag.pointee.load(ordering: .acquiring) != 0 { return address }
        return Self.decryptOnFirstRead(decryption.unsafelyUnwrapped, page, at: address, flag: flag)
    }

    /// Where page `page` lies in the map (its plaintext, in an encrypted file, once ready).
    @inline(__always)
    func address(_ page: PageNumber) -> UnsafeMutableRawPointer {
        let (section, index) = PageMap.location(of: page)
        return sections[section].unsafelyUnwrapped + (index << Int(PageLayout.pageShift))
    }

    @inline(never)
    private static func decryptOnFirstRead(_ cache: Unmanaged<DecryptedPageCache>, _ page: PageNumber,
                                           at address: UnsafeRawPointer, flag: UnsafeMutablePointer<Atomic<UInt8>>) -> UnsafeRawPointer {
        cache._withUnsafeGuaranteedRef { $0.decrypt(page, at: address, flag: flag) }
    }
}
