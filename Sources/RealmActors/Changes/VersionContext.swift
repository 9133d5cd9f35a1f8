internal import RealmRuntime
import Synchronization

/// One version as the notifier processes it, shared by every tracker it advances: the pinned
/// snapshot, the log of the commits since the previous version (nil when not kept: then
/// trackers compare values, or count everything as changed), a frozen handle for evaluating
/// queries, and the objects modified under the default filter, worked out once per table.
final class VersionContext {
    let snapshot: FrozenSnapshot
    let changes: RowChanges?
    /// A frozen handle at the version (made on first use).
    private(set) lazy var handle: Realm = snapshot.handle()
    private var modifiedByDefault: [TreeID: Set<UInt64>] = [:]

    init(snapshot: FrozenSnapshot, changes: RowChanges?) {
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
