import Synchronization

/// Something told when a new version of a file is durable: the file's notifier (through
/// ``ChangeFeed``, which tells it first) and autorefreshing handles (through
/// ``VersionObservers``, after the notifier delivered the version).
package protocol VersionObserver: AnyObject, Sendable {
    /// A new version is durable. Called on the commit queue or a committing thread: it must only
    /// schedule work, not do it.
    func versionDidBecomeDurable(_ version: TransactionID)
}

/// The observers of a file's new versions, by registration token. The table is guarded by its
/// own lock; observers are called outside it.
package final class VersionObservers: Sendable {
    private let observers = Lock<[UInt64: any VersionObserver]>([:])
    private let nextID = Atomic<UInt64>(0)

    /// Registers an observer; returns the token to remove it with.
    package func add(_ observer: any VersionObserver) -> UInt64 {
        let id = nextID.add(1, ordering: .relaxed).newValue
        observers.withLock { $0[id] = observer }
        return id
    }

    package func remove(_ id: UInt64) {
        _ = observers.withLock { $0.removeValue(forKey: id) }
    }

    func notify(_ version: TransactionID) {
        for observer in observers.withLock({ Array($0.values) }) { observer.versionDidBecomeDurable(version) }
    }
}
