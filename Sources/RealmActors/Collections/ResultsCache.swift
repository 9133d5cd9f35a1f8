internal import RealmRuntime

/// The keys of a `Results` at one version of its handle (a reference, so the value type can
/// fill it lazily).
final class ResultsCache {
    /// The keys at one version of one handle: all of them, or (`isPrefix`) the first ones of a
    /// sorted query.
    private var entry: (stamp: UInt64, handle: ObjectIdentifier, keys: [UInt64], isPrefix: Bool)?
    /// The number of matching objects at one version of one handle, when it was counted without
    /// collecting keys (a filtered, unsorted `count`).
    private var counted: (stamp: UInt64, handle: ObjectIdentifier, count: Int)?
    /// The predicate's plan under one schema (held, so a new catalog can never take its identity).
    private var boundPlan: (catalog: SchemaCatalog, plan: QueryPlan)?

    func plan(for catalog: SchemaCatalog) -> QueryPlan? {
        guard let boundPlan, boundPlan.catalog === catalog else { return nil }
        return boundPlan.plan
    }

    func store(_ plan: QueryPlan, for catalog: SchemaCatalog) {
        boundPlan = (catalog, plan)
    }

    func keys(at realm: Realm, allowingPrefix: Bool = false) -> [UInt64]? {
        guard let entry, entry.stamp == realm.stamp, entry.handle == ObjectIdentifier(realm),
              allowingPrefix || !entry.isPrefix else { return nil }
        return entry.keys
    }

    func count(at realm: Realm) -> Int? {
        guard let counted, counted.stamp == realm.stamp, counted.handle == ObjectIdentifier(realm) else { return nil }
        return counted.count
    }

    func store(count: Int, at realm: Realm) {
        counted = (realm.stamp, ObjectIdentifier(realm), count)
    }

    func store(_ keys: [UInt64], at realm: Realm, isPrefix: Bool = false) {
        entry = (realm.stamp, ObjectIdentifier(realm), keys, isPrefix)
    }
}
