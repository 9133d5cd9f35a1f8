import Synchronization

/// Computes one change stream's elements. Lives on the ``Notifier`` actor and is only touched
/// there: it is created, advanced and asked for elements by the notifier alone.
package protocol ChangeTracker: AnyObject {
    /// The first element, if the stream has one (`.initial` for collections), at the version
    /// the tracker was created at.
    func initialElement() -> ChangeElement?
    /// Takes in a newer version (see ``VersionContext``); `silent` when every commit since the
    /// last version asked not to notify this observer — the tracker then moves its baseline
    /// without reporting. Returns whether an element may now be pending (false lets the
    /// notifier leave a waiting consumer asleep).
    @discardableResult
    func advance(_ version: VersionContext, silent: Bool) -> Bool
    /// What to deliver since the last element, coalescing every version taken in since, or nil
    /// if nothing observable changed. `isLast` ends the stream after it (an object deleted).
    func takeElement() -> (element: ChangeElement, isLast: Bool)?
    /// The element reporting `error`, after which the stream ends (nil: it just ends).
    func errorElement(_ error: RuntimeError) -> ChangeElement?
}
