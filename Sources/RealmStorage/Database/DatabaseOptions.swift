/// How a database is opened.
package struct DatabaseOptions: Sendable {
    /// Never write: no write transactions; of the lock file, only this process's slot.
    package var readOnly = false
    /// Whether a flush waits for the disk. `.none` keeps data safe from a process crash but not
    /// from a power cut; it exists for tests and for comparison with non-syncing peers.
    package var durability: Durability = .full
    /// Test hook for failing I/O.
    package var faults: (any IOFaultInjector)?
    /// The 64-byte key of an encrypted file (see `PageCipher`); nil for an unencrypted one. A
    /// new file is created encrypted when a key is given.
    package var encryptionKey: [UInt8]?
    /// Whether small batches go through the write-ahead log `<file>.log` (see `WriteAheadLog`):
    /// one contiguous write and one sync per batch instead of a write per run of pages. Only
    /// with full durability. Off, every batch is written in place; a log left with records is
    /// still replayed on open.
    package var writeAheadLog = true
    /// Whether this process writes beside other writing processes (issue 39, step 5: write
    /// ownership handed over through the lock file; see `LockFile+Writing.swift`). Each of them
    /// must open with it (the runtime opens every writable file so). Off, a writable open beside
    /// another writing process is refused.
    package var sharesWriting = false
    /// Whether this open is for work that replaces the file (compaction on launch): it opens only
    /// if no other process has the file open (else `.alreadyOpen`), and no other process attaches
    /// until it is closed — their opens wait (`LockFile.attach(keepingOthersOut:)`).
    package var keepsOthersOut = false

    package enum Durability: Sendable { case full, none }

    package init(readOnly: Bool = false, durability: Durability = .full, faults: (any IOFaultInjector)? = nil,
                 encryptionKey: [UInt8]? = nil, writeAheadLog: Bool = true) {
        self.readOnly = readOnly
        self.durability = durability
        self.faults = faults
        self.encryptionKey = encryptionKey
        self.writeAheadLog = writeAheadLog
    }
}
