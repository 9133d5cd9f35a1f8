import Foundation
internal import RealmRuntime

/// The tracker of `realm.changes`: one frozen realm per new version (coalesced when the
/// consumer is slower than the commits).
final class RealmChangeTracker: ChangeTracker {
    private var snapshot: FrozenSnapshot
    private var deliveredVersion: TransactionID

    init(snapshot: FrozenSnapshot) {
        self.snapshot = snapshot
        deliveredVersion = snapshot.reader.transaction
    }

    func initialElement() -> (any Sendable)? { nil }

    func advance(_ version: VersionContext, silent: Bool) -> Bool {
        snapshot = version.snapshot
        if silent { deliveredVersion = version.snapshot.reader.transaction }
        return !silent
    }

    func takeElement() -> (element: any Sendable, isLast: Bool)? {
        guard snapshot.reader.transaction > deliveredVersion else { return nil }
        deliveredVersion = snapshot.reader.transaction
        return (FrozenRealm(snapshot: snapshot), false)
    }

    func errorElement(_ error: Realm.Error) -> (any Sendable)? { nil }  // the stream just ends
}
