/// How the pages of a database file are used, at its newest prepared version: what
/// diagnostics report and what `shouldCompactOnLaunch` weighs.
///
/// Every page of the file is in exactly one of: the newest version (`liveBytes`, meta pages and
/// the free-list chain included), free and reusable now (`freeBytes`), or free in the newest
/// version but still held — by a version a reader pins, or by a commit not yet durable
/// (`heldBytes`). So `fileBytes == liveBytes + freeBytes + heldBytes`.
package struct SpaceUsage: Equatable, Sendable {
    /// The file's length the newest version uses.
    package var fileBytes: UInt64
    /// The pages the newest version reaches.
    package var liveBytes: UInt64
    /// Free pages the next commits may reuse.
    package var freeBytes: UInt64
    /// Free pages that older versions (pinned, or not yet superseded durably) still need.
    package var heldBytes: UInt64
}
