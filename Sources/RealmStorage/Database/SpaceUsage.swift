/// How the pages of a database file are used, at its newest prepared version: what
/// diagnostics report and what `shouldCompactOnLaunch` weighs.
///
/// Every page of the file is in exactly one of: the newest version (`liveBytes`, meta pages and
/// the free-list chain included), free and reusable now (`freeBytes`), free in the newest
/// version but still held — by a version a reader pins, or by a commit not yet durable
/// (`heldBytes`), or kept for the versions replication slots retain (`retainedBytes`). So
/// `fileBytes == liveBytes + freeBytes + heldBytes + retainedBytes`.
package struct SpaceUsage: Equatable, Sendable {
    /// The file's length the newest version uses.
    package var fileBytes: UInt64
    /// The pages the newest version reaches.
    package var liveBytes: UInt64
    /// Free pages the next commits may reuse.
    package var freeBytes: UInt64
    /// Free pages that older versions (pinned, or not yet superseded durably) still need.
    package var heldBytes: UInt64
    /// Pages of older versions kept for replication slots that have not confirmed them.
    package var retainedBytes: UInt64 = 0
    /// The format the newest version is written in (5, or 7 with replication state).
    package var formatVersion: UInt32 = MetaPage.formatVersion
    /// Whether the newest version has replication slots or change records.
    package var hasReplication: Bool = false
}
