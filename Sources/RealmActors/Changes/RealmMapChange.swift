/// A change to a ``Map``, delivered by its `changes` stream and `observe` blocks: Realm Swift's
/// `RealmMapChange`, with the map as a `Sendable` dictionary of its values.
///
/// ```swift
/// for await change in player.scores.changes {
///     switch change {
///     case .initial(let scores): print(scores)
///     case .update(let scores, let deletions, let insertions, let modifications):
///         print("removed \(deletions), added \(insertions), changed \(modifications): \(scores)")
///     case .error(let error): print(error)
///     }
/// }
/// ```
public enum RealmMapChange<Collection: Sendable, Key: Sendable>: Sendable {
    /// The map when observation started.
    case initial(Collection)
    /// The map after one or more commits: the keys removed, added, and whose value changed.
    case update(Collection, deletions: [Key], insertions: [Key], modifications: [Key])
    /// The realm could no longer be read; the stream ends after this.
    case error(Realm.Error)
}
