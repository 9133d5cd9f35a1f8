/// One version as the notifier processes it, shared by every tracker it advances: the pinned
/// version, the log of the commits since the previous version (nil when not kept: then
/// trackers compare values, or count everything as changed), and the objects modified under the
/// default filter, worked out once per table. Lives on the ``Notifier`` actor, for one version.
package final class VersionContext {
    package let snapshot: FrozenVersion
    package let changes: RowChanges?
    private var modifiedByDefault: [TreeID: Set<UInt64>] = [:]

    init(snapshot: FrozenVersion, changes: RowChanges?) {
        self.snapshot = snapshot
        self.changes = changes
    }

    /// The objects of `table` the commits modified under `filter` (none without a log).
    func modifiedKeys(in table: Table, filter: ChangeFilter) -> Set<UInt64> {
        guard let changes else { return [] }
        let modified = ModifiedObjects(changes: changes, snapshot: snapshot)
        guard case .everything(let depth) = filter, depth == ChangeFilter.defaultLinkDepth else {
            return modified.keys(in: table, filter: filter)
        }
        if let cached = modifiedByDefault[table.tree] { return cached }
        let keys = modified.keys(in: table, filter: filter)
        modifiedByDefault[table.tree] = keys
        return keys
    }
}
