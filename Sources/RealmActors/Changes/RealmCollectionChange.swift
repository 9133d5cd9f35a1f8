internal import RealmRuntime

/// A change to a collection (`Results`, `List`, `LinkingObjects`), delivered by its
/// ``Results/changes`` stream.
///
/// The first element is `.initial` with the collection as it is when observation starts; every
/// later one is an `.update` from the previously delivered state to a newer one: `deletions`
/// are indices in the previous state, `insertions` and `modifications` indices in the new one
/// (unlike Realm Swift, whose `modifications` are old indices). Applying the deletions to the
/// previous collection, then the insertions, gives the new one's objects. An object that moved
/// (its position in a sorted collection changed) is deleted and inserted.
public enum RealmCollectionChange<Collection: Sendable>: Sendable {
    /// The collection when observation started.
    case initial(Collection)
    /// The collection after one or more commits, and how it changed since the previous element.
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// The realm could no longer be read; the stream ends after this.
    case error(Realm.Error)
}

extension RealmCollectionChange {
    /// The public form of a collection element of the notifier: its keys as frozen results at
    /// the element's version. Nil for any other element (the stream then ends).
    init?<T: Object>(_ element: ChangeElement, query: ObjectQuery, configuration: Realm.Configuration) where Collection == FrozenResults<T> {
        switch element {
        case .collection(let version, let table, let keys, let diff):
            let results = FrozenResults<T>(snapshot: FrozenSnapshot(configuration: configuration, version: version), table: table, keys: keys, query: query)
            guard let diff else {
                self = .initial(results)
                return
            }
            self = .update(results, deletions: diff.deletions, insertions: diff.insertions, modifications: diff.modifications)
        case .failure(let error):
            self = .error(Realm.Error(error, configuration: configuration))
        case .object, .objectDeleted, .values, .realm:
            return nil
        }
    }
}

extension RealmCollectionChange {
    /// The same change with the collection transformed (the indices are unchanged).
    func map<Other: Sendable>(_ transform: (Collection) -> Other) -> RealmCollectionChange<Other> {
        switch self {
        case .initial(let collection): .initial(transform(collection))
        case .update(let collection, let deletions, let insertions, let modifications):
            .update(transform(collection), deletions: deletions, insertions: insertions, modifications: modifications)
        case .error(let error): .error(error)
        }
    }
}
