/// The files kept beside a database file `<file>`, all named `<file><suffix>`: the lock file,
/// the write-ahead log, and the temporary files of work that a crash can interrupt. A
/// temporary file is never read back: each is written whole, synced, then renamed or linked to
/// `<file>`, so one left over by a crash is garbage, removed by the next run of the same work or
/// by `Realm.deleteFiles(for:)`. The log is part of the database: it may hold its newest
/// commits (see `WriteAheadLog`), so it is copied, moved and deleted with `<file>`.
package enum AuxiliaryFile: CaseIterable, Sendable {
    /// `<file>.lock`: shared by every process that has the file open (see `LockFile`).
    case lock
    /// `<file>.log`: the write-ahead log (see `WriteAheadLog`).
    case log
    /// `<file>.creating`: a new, empty database being created.
    case creating
    /// `<file>.seeding`: a copy of `seedFilePath` being installed.
    case seeding
    /// `<file>.copying`: a compacted copy being written (compaction replaces `<file>` with it).
    case copying
    /// `<file>.copying.lock`: the compacted copy's lock file while it is written.
    case copyingLock

    /// The suffix appended to the database file's path.
    package var suffix: String {
        switch self {
        case .lock: ".lock"
        case .log: ".log"
        case .creating: ".creating"
        case .seeding: ".seeding"
        case .copying: ".copying"
        case .copyingLock: ".copying.lock"
        }
    }
}
