/// Where each field of the lock file (`<file>.lock`, see ``LockFile``) lives: byte offsets into its
/// shared mapping, and the offsets of the byte-range locks taken on it. FORMAT.md ("The lock
/// file") has the same table with who writes each field.
///
/// Every field is a little-endian, naturally aligned 64-bit word, read and written with the
/// atomic accesses of `CRealmSync` (`realm_shared_load`/`realm_shared_store`), so a process never
/// sees half a store.
package enum LockFileLayout {
    /// `"RLMALCK\0"` read as a little-endian word.
    package static let magic: UInt64 = 0x004B_434C_414D_4C52
    /// The layout this library writes and joins. A lock file of another layout, while processes
    /// have it attached, is refused; with nobody attached it is rewritten.
    package static let version: UInt64 = 2

    // The header: written once by the process that initializes the lock file, under the control
    // lock, `session` last; read by joiners under the control lock.
    package static let magicOffset = 0
    package static let versionOffset = 8
    /// The mapping's size in bytes.
    package static let sizeOffset = 16
    /// A random nonzero number naming this initialization; 0 while the file is being initialized
    /// or after the last process detached.
    package static let sessionOffset = 24
    /// The data file's device and inode, and its file id (meta page): a joiner that opened
    /// another file at the same path (replaced while others had it open) is refused.
    package static let dataDeviceOffset = 32
    package static let dataInodeOffset = 40
    package static let dataFileIDOffset = 48
    /// 1 if the data file is encrypted.
    package static let encryptedOffset = 56
    package static let slotCountOffset = 64
    /// One more than the highest slot claimed in this session: scans of the slots stop there.
    /// Only grows (under the control lock).
    package static let slotHighWaterOffset = 72
    /// A 32-bit word incremented by every publish, which watchers of other processes wait on
    /// (futex on Linux, `os_sync_wait_on_address` on Darwin), and the number of such watchers
    /// (32 bits): a publisher wakes them only when there are some.
    package static let commitSignalOffset = 80
    package static let watcherCountOffset = 84
    /// The written-pages ring's head: runs ever appended (see ``ringOffset``).
    package static let ringHeadOffset = 88

    /// The newest version the writing process made durable, for the other processes to adopt
    /// (`LockFile.publish(_:slot:)`): a counter, then two buffers. Each publish fills the buffer the counter does *not* select, then increments the counter,
    /// so buffer `counter & 1` is whole unless the counter moved while it was read (a reader
    /// copies it between two loads of the counter and retries if they differ).
    package static let publishedCounterOffset = 128
    package static let publishedBuffersOffset = 136
    /// A published version's words: the meta's fields, its meta slot, and a checksum of them.
    package static let publishedWords = 19
    package static let publishedBufferSize = publishedWords * 8

    // Write coordination (layout 2; see `LockFile+Writing.swift`): written only by the process
    // holding the write byte lock (``writeLock``), or under the control lock by a process that
    // recovered the file with no writer attached.
    /// The slot of the process that owns writing, plus one; 0 when none does. A process that
    /// takes the write lock and finds another slot here knows the owner died owning it, and
    /// recovers to the published version first (*warm recovery*).
    package static let ownerOffset = 512
    /// The lowest transaction id no process has handed out: an owner stores `id + 1` before any
    /// page carries `id`, so ids are never stamped twice, even by a dead owner's successor.
    package static let nextTransactionOffset = 520
    /// The write-ahead log's cursor as of the newest published version (or the last reset): its
    /// generation's salt, the next record's sequence number, where it starts, and where the last
    /// record started. A record past `end` was never published: warm recovery cuts it off.
    package static let logSaltOffset = 528
    package static let logSequenceOffset = 536
    package static let logEndOffset = 544
    package static let logLastRecordOffset = 552
    /// 1 once a writing process stored the fields above in this session.
    package static let writerStateOffset = 560
    /// The *ownership epoch* (32 bits): incremented by every process that takes write ownership,
    /// so a process that gave it up while others waited can wait (futex) until one of them took
    /// it (see `LockFile.acquireWriteOwnership(waiting:)`); and how many processes wait so (32
    /// bits): a process taking ownership wakes them only when there are some.
    package static let ownershipEpochOffset = 568
    package static let handoffWaitersOffset = 572

    // The rest up to 4096 is reserved.

    /// The process slots: one per attached process.
    package static let slotsOffset = 4096
    package static let slotSize = 256
    package static let slotCount = 256
    /// The written-pages ring, after the slots: the page runs each publish of an encrypted file
    /// wrote, entry `i` at `i % ringCapacity` (first page, page count), so that followers forget
    /// their decrypted copies of reused page numbers before they read a version that reuses them.
    package static let ringOffset = slotsOffset + slotCount * slotSize
    package static let ringCapacity = 4096
    package static let ringEntrySize = 16
    package static let size = ringOffset + ringCapacity * ringEntrySize

    // A slot's fields, relative to its start. Written by its process (claim and release under the
    // control lock) or, once it is dead, by whoever clears it under the control lock.
    /// ``SlotState``.
    package static let slotStateOffset = 0
    /// The process's pid: for diagnostics only (liveness is the slot's byte lock, which is right
    /// across PID namespaces and PID reuse).
    package static let slotPIDOffset = 8
    /// When the process attached, in nanoseconds since 1970.
    package static let slotAttachedAtOffset = 16
    /// ``SlotFlags``.
    package static let slotFlagsOffset = 24
    /// The versions the process pins, mirrored from its readers (see `LockFile.mirrorPin(_:)`):
    /// every version in `low...high` counts as pinned (0 and 0: none), and each nonzero exact
    /// entry. Written only by the slot's process, read by every writer.
    package static let slotRangeLowOffset = 32
    package static let slotRangeHighOffset = 40
    package static let slotExactPinsOffset = 48
    package static let exactPinsPerSlot = (slotSize - slotExactPinsOffset) / 8

    package enum SlotState: UInt64 {
        case free = 0
        case attached = 1
    }

    package struct SlotFlags: OptionSet, Sendable {
        package let rawValue: UInt64
        package init(rawValue: UInt64) { self.rawValue = rawValue }
        /// The process opened the file for writing.
        package static let writer = SlotFlags(rawValue: 1)
        /// The process writes beside other writing processes (see `DatabaseOptions.sharesWriting`):
        /// a writer joins writing processes only when each has this flag, and has it itself.
        package static let sharesWriting = SlotFlags(rawValue: 2)
        /// The process is blocked waiting for write ownership: the owner yields to it (see
        /// `LockFile.anotherProcessWaitsToWrite()`). Set and cleared by the slot's process only.
        package static let waitsToWrite = SlotFlags(rawValue: 4)
    }

    // Byte-range locks (OFD locks on Linux): placed far beyond the mapping, so they never cover
    // data a process reads or writes.
    /// Held exclusively while a process attaches, initializes or detaches: those never overlap.
    package static let controlLock: Int64 = 1 << 30
    /// Held exclusively by the process that owns writing, from the start of its first write
    /// transaction until its commits are durable and no write transaction is open: the
    /// authority on who may append to the log and write the data file. The kernel releases it
    /// with a dead owner's descriptors (the owner word then still names the dead slot).
    package static let writeLock: Int64 = (1 << 30) + 8
    /// Held exclusively by slot `i`'s process for as long as it is attached: a slot whose byte
    /// nobody holds belongs to a dead process (the kernel releases a dead process's locks).
    package static func livenessLock(ofSlot slot: Int) -> Int64 { (1 << 30) + 64 + Int64(slot) }
}
