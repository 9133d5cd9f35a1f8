import Foundation

/// The tracker of `realm.changes`: one frozen realm per new version (coalesced when the
/// consumer is slower than the commits).
package final class RealmChangeTracker: ChangeTracker {
    private var snapshot: FrozenVersion
    private var deliveredVersion: TransactionID

    package init(snapshot: FrozenVersion) {
        self.snapshot = snapshot
        deliveredVersion = snapshot.reader.transaction
    }

    package func initialElement() -> ChangeElement? { nil }

    package func advance(_ version: VersionContext, silent: Bool) -> Bool {
        snapshot = version.snapshot
        if silent { deliveredVersion = version.snapshot.reader.transaction }
        return !silent
    }

    package func takeElement() -> (element: ChangeElement, isLast: Bool)? {
        guard snapshot.reader.transaction > deliveredVersion else { return nil }
        deliveredVersion = snapshot.reader.transaction
        return (.realm(snapshot), false)
    }

    package func errorElement(_ error: RuntimeError) -> ChangeElement? { nil }  // the stream just ends
}
