internal import RealmRuntime

/// The objects of one class in a realm: Realm Swift's `Results`, a lazy and live collection.
///
/// Nothing is read until the collection is used, and it always reflects the realm's current
/// version, including the changes of the handle's own open write transaction. Unfiltered and
/// unsorted, `count` is O(1) and positional access walks the table's tree by subtree counts
/// (O(log n)) without materializing anything. Filtered, sorted or distinct results compute the
/// matching keys once per version of the handle (an index answers `==`/`IN` on indexed
/// properties; otherwise one pass over the needed columns) and reuse them until the handle
/// moves. `for … in` iterates a snapshot of the objects taken when the loop starts, so deleting
/// or adding objects inside the loop does not disturb it.
public struct Results<Element: Object>: RandomAccessCollection, CustomStringConvertible {
    /// The realm the objects live in.
    public let realm: Realm?
    let handle: Realm
    /// What the results hold, evaluated by the object store at the handle's version: the stored
    /// class (`Element`'s, or the one named in `dynamicObjects(_:)`), where the candidate objects
    /// come from, the conjunction of every `filter`/`where` applied, distinct and sort.
    let query: ObjectQuery
    let cache = ResultsCache()

    init(realm: Realm, className: String = Element.className(), base: QueryBase = .table) {
        self.init(realm: realm, query: ObjectQuery(className: className, base: base))
    }

    init(realm: Realm, query: ObjectQuery) {
        self.realm = realm
        handle = realm
        self.query = query
        invalidations = realm.invalidations
    }

    /// The handle's ``Realm/invalidate()`` count when the results were made.
    private let invalidations: UInt64

    /// The stored class.
    var className: String { query.className }

    /// Whether the results belong to a frozen realm (they never change).
    public var isFrozen: Bool { handle.isFrozen }

    /// Whether the realm was invalidated (``Realm/invalidate()``) since the results were made.
    public var isInvalidated: Bool { handle.invalidations != invalidations }

    var table: Table? { handle.catalog.tables[query.className] }

    /// Every object of the table in key order: the fast paths apply.
    private var isWholeTable: Bool { query.isInKeyOrder && query.predicate == nil }

    /// The number of objects. O(1) for a whole table.
    public var count: Int {
        guard let table else { return 0 }
        if let known = knownCount { return known }
        if query.base.isTable, query.keepsEveryMatch {
            // Sorting does not change how many: count without sorting or collecting keys, once
            // per version of the handle (`endIndex`, `prefix`, `isEmpty` all ask again).
            guard let plan = plan(in: table) else { return Int(handle.root(of: table.tree).count) }
            let count = handle.query(table) { try $0.count(matching: plan, in: table) }
            cache.store(count: count, at: handle)
            return count
        }
        return keys().count
    }

    /// The number of objects if this version's keys or count are cached already.
    private var knownCount: Int? { cache.keys(at: handle)?.count ?? cache.count(at: handle) }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// ``count``.
    public var endIndex: Int { count }

    /// The object at `position` (traps if out of bounds, like an array).
    public subscript(position: Int) -> Element {
        guard let table, position >= 0 else { fatalError("Index \(position) is out of bounds") }
        if isWholeTable {
            guard let key = handle.query(table, { try $0.key(atPosition: UInt64(position), in: table) }) else {
                fatalError("Index \(position) is out of bounds (must be less than \(count))")
            }
            return handle.managedObject(Element.self, table: table, key: key)
        }
        let keys = query.ordering.isEmpty || query.onlySort != nil ? keys(through: position) : keys()
        guard position < keys.count else { fatalError("Index \(position) is out of bounds (must be less than \(keys.count))") }
        return handle.managedObject(Element.self, table: table, key: keys[position])
    }

    /// Whether there are no objects: for a filtered query, a scan that stops at the first match
    /// rather than a count (unless the count or the keys are known already).
    public var isEmpty: Bool {
        guard table != nil else { return true }
        if let known = knownCount { return known == 0 }
        // `count` neither sorts nor collects keys; an unordered query's scan can stop at one.
        if isWholeTable || !query.ordering.isEmpty { return count == 0 }
        return keys(limit: 1).isEmpty
    }

    /// The first object, without computing the rest for an unsorted query.
    public var first: Element? {
        guard let table else { return nil }
        if isWholeTable || !query.ordering.isEmpty || query.predicate == nil { return isEmpty ? nil : self[0] }
        if let key = keys(limit: 1).first { return handle.managedObject(Element.self, table: table, key: key) }
        return nil
    }

    /// The position of an object in the results, or nil.
    public func index(of object: Element) -> Int? {
        guard let state = object.realmState, state.realm.file === handle.file, state.table.name == className else { return nil }
        if isWholeTable { return firstIndex { $0.realmState?.key == state.key } }
        return keys().firstIndex(of: state.key)
    }

    /// Iterates over the objects as they are now: a snapshot, so changes made while iterating
    /// (deleting or adding objects in a write, refreshing) do not disturb the loop.
    ///
    /// For a whole table outside a write transaction, the snapshot is the handle's current
    /// version, pinned by the iterator and walked leaf by leaf with nothing copied; otherwise the
    /// keys are taken first.
    public func makeIterator() -> Iterator {
        Iterator(results: self)
    }

    /// The iterator of ``Results``.
    ///
    /// **Accessor reuse.** A loop such as `for person in results { sum += person.age }` drops
    /// each object before it asks for the next. The iterator keeps the object it returned last
    /// (`previous`); if, when asked for the next, that object is referenced by nothing else
    /// (`ObjectBase.isOnlyReference`: no other strong, weak or unowned
    /// reference) and its class keeps no state but its `@Persisted` wrappers
    /// (`PersistedFieldLayout.holdsOnlyPersistedState`), the iterator moves it to the next
    /// object instead of making a new accessor: no allocation, no initialisation of its wrappers,
    /// no retain of the realm and table. Nothing can tell the difference: no code holds the old
    /// object, and a managed object is entirely its handle, table and key. An object the loop
    /// keeps (in an array, a set, a closure, a weak variable) is never moved; the next one is new.
    public struct Iterator: IteratorProtocol {
        private let handle: Realm
        private let table: Table?
        /// Keys to visit (queries, and whole tables inside a write transaction).
        private var keys: [UInt64] = []
        private var keyIndex = 0
        /// A whole table outside a write: the version being walked (pinned while the iterator
        /// lives) and its leaves.
        private var snapshot: ReadTransaction?
        private var leaves: [UnsafeRawPointer] = []
        private var leafIndex = 0
        private var row = 0
        private let stamp: UInt64
        /// The object returned last: once a property read has found its row, the next key is
        /// usually the next row of the same leaf; and if nothing else references it, it becomes
        /// the next object (see the type's comment). Typed as the base class, as the code
        /// handling it need not be specialized for `Element` to be cheap (this iterator is
        /// compiled once, for every `Element`): always an `Element`.
        private var previous: ObjectBase?
        /// Whether `Element`'s instances hold nothing but their wrappers, so that one nothing
        /// references can be moved to another object.
        private let reusesAccessors: Bool

        init(results: Results) {
            handle = results.handle
            table = results.table
            stamp = handle.positionStamp
            reusesAccessors = PersistedFieldLayout.of(Element.self)?.holdsOnlyPersistedState ?? false
            guard let table else { return }
            if !results.isWholeTable {
                keys = results.keys()
            } else if handle.isInWriteTransaction {
                keys = handle.query(table) { try $0.keys(of: table) }
            } else {
                snapshot = handle.reader
                leaves = handle.query(table) { try $0.leaves(of: table) }
            }
        }

        /// The next object, or nil at the end.
        public mutating func next() -> Element? {
            guard table != nil else { return nil }
            guard snapshot != nil else {
                guard keyIndex < keys.count else { return nil }
                defer { keyIndex += 1 }
                let key = keys[keyIndex]
                // In a write transaction a loop that sets a property of each object moves no
                // row (``Realm/positionStamp``), so where the previous object was found tells
                // where this one is, without a descent from the root.
                if let (leaf, row) = previous?.knownPosition, leaf.holds(key, at: row + 1) {
                    return accessor(key, at: (leaf, row + 1))
                }
                return accessor(key, at: nil)
            }
            while leafIndex < leaves.count {
                let leaf = ClusterLeaf(leaves[leafIndex])
                if row < leaf.count {
                    defer { row += 1 }
                    // While the handle is still at the snapshot's version the object starts with
                    // its position known; after the loop wrote or refreshed, it is found by key.
                    guard handle.positionStamp == stamp else { return accessor(leaf.key(row), at: nil) }
                    return accessor(leaf.key(row), at: (leaf, row))
                }
                leafIndex += 1
                row = 0
            }
            return nil
        }

        /// An accessor of the object `key` of the table, at `position` in the handle's current
        /// version if known: `previous` moved there if nothing else references it, else a new one.
        ///
        /// (`previous` is taken out, so that its uniqueness is checked on a local and nothing is
        /// retained on the way; an object found to be referenced elsewhere stays with its
        /// holders.)
        @inline(__always)
        private mutating func accessor(_ key: UInt64, at position: (leaf: ClusterLeaf, row: Int)?) -> Element {
            if reusesAccessors, var object = previous.take(), ObjectBase.isOnlyReference(&object) {
                object.move(to: key, at: position)
                previous = object
                return unsafeDowncast(object, to: Element.self)
            }
            let object = Element(), table = table!
            if let position {
                object.attach(to: handle, table: table, leaf: position.leaf, row: position.row)
            } else {
                object.attach(to: handle, table: table, key: key)
            }
            previous = object
            return object
        }
    }

    /// `Results<Dog> <count objects>`.
    public var description: String { "Results<\(className)> <\(count) objects>" }

    // MARK: Evaluation

    /// The keys of the objects, in order, at the handle's current version (cached until it moves).
    /// With a `limit`, a query with no ordering (or only limits) may return only the first
    /// `limit` or more; only a complete list is cached as the results' keys (a partial one is
    /// kept as a prefix).
    func keys(limit: Int? = nil) -> [UInt64] {
        if let cached = cache.keys(at: handle) { return cached }
        if let limit, let cached = cache.keys(at: handle, allowingPrefix: true), cached.count >= limit { return cached }
        guard let table else { return [] }
        let plan = plan(in: table)
        let keys = handle.query(table) { try $0.keys(of: query, plan: plan, in: table, limit: limit) }
        let isComplete = limit.map { keys.count < $0 } ?? true || (!query.ordering.isEmpty && query.onlyLimit == nil)
        cache.store(keys, at: handle, isPrefix: !isComplete)
        return keys
    }

    /// Keys through at least `position` (when it exists), computing no more than needed: the
    /// first matches of an unsorted query (its scan stops early), or a top-k selection of a
    /// sorted one; growing eightfold as reads go further, until everything is computed.
    private func keys(through position: Int) -> [UInt64] {
        if let cached = cache.keys(at: handle, allowingPrefix: true), position < cached.count { return cached }
        if let cached = cache.keys(at: handle) { return cached }
        guard let table else { return [] }
        let limit = Swift.max(128, (position + 1) * 8)
        guard let sort = query.onlySort else { return keys(limit: limit) }
        let plan = plan(in: table)
        let (base, keys) = handle.query(table) { queries in
            let base = try queries.baseKeys(query.base, plan: plan, in: table, limit: nil)
            return (base, try queries.sorted(base, by: sort, in: table, limit: limit))
        }
        cache.store(keys, at: handle, isPrefix: keys.count < base.count)
        return keys
    }

    /// The predicate's plan under the handle's current schema (bound once per schema), or nil
    /// without a predicate.
    private func plan(in table: Table) -> QueryPlan? {
        guard let predicate = query.predicate else { return nil }
        if let plan = cache.plan(for: handle.catalog) { return plan }
        let plan = handle.queries().plan(predicate, in: table)
        cache.store(plan, for: handle.catalog)
        return plan
    }

    // MARK: Derived results

    /// Objects matching a Realm Query Language predicate, also matching the predicates applied
    /// so far:
    ///
    /// ```swift
    /// let puppies = realm.objects(Dog.self).filter("age < %@ AND name BEGINSWITH[c] %@", 2, "r")
    /// ```
    ///
    /// After the predicate, Realm's descriptors sort, distinct and limit the objects, applied in
    /// the order written: `"age < 2 SORT(name ASC, age DESC) DISTINCT(name) LIMIT(10)"`. A
    /// `LIMIT` bounds the work too: with nothing sorting before it, the scan stops after that many
    /// matches. Results with a limit cannot be filtered further (as in Realm).
    ///
    /// The predicate is part of the program: a malformed one, an unknown property or a value of
    /// the wrong type is a programmer error and traps with the parser's message and the offset
    /// where it was found, as Realm raises. For a predicate that comes from a user or the network,
    /// use ``filter(validating:_:)``, which throws instead.
    public func filter(_ predicateFormat: String, _ arguments: Any...) -> Results<Element> {
        filter(predicateFormat, argumentArray: arguments)
    }

    /// ``filter(_:_:)`` with the arguments in an array.
    public func filter(_ predicateFormat: String, argumentArray arguments: [Any]) -> Results<Element> {
        Realm.trappingInvalidInput { try filter(validating: predicateFormat, argumentArray: arguments) }
    }

    /// ``filter(_:_:)`` for a predicate from outside the program — a search box, a request's query
    /// string: a predicate that does not fit throws instead of trapping, so a server answers the
    /// request with the error and keeps running.
    ///
    /// ```swift
    /// let matching = try realm.objects(Dog.self).filter(validating: request.query)
    /// ```
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` for a malformed predicate, an unknown
    ///   property or a value of the wrong type, naming the problem and the offset where it was
    ///   found.
    public func filter(validating predicateFormat: String, _ arguments: Any...) throws -> Results<Element> {
        try filter(validating: predicateFormat, argumentArray: arguments)
    }

    /// ``filter(validating:_:)`` with the arguments in an array.
    public func filter(validating predicateFormat: String, argumentArray arguments: [Any]) throws -> Results<Element> {
        try checkNotLimited()
        let (parsed, plan) = try handle.parseQuery(predicateFormat, arguments: arguments, className: className)
        let predicate = query.predicate
        return refined(predicate: predicate.map { .and([$0, parsed.expression]) } ?? parsed.expression,
                       plan: predicate == nil ? plan : nil, ordering: parsed.ordering)
    }

    /// Throws if a `LIMIT` applies: Realm does not filter limited results (it raises "Filtering
    /// a Results with a limit is not yet implemented"), as the filter would have to apply to
    /// what the limit kept, not before it.
    private func checkNotLimited() throws {
        guard !query.isLimited else {
            throw Realm.Error(.invalidInput, "Filtering a Results with a limit is not supported: write the LIMIT after the whole predicate")
        }
    }

    /// Objects matching a type-safe query, also matching the predicates applied so far:
    ///
    /// ```swift
    /// let puppies = realm.objects(Dog.self).where { $0.age < 2 && $0.name.starts(with: "R") }
    /// ```
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        Realm.trappingInvalidInput { try checkNotLimited() }
        let expression = isIncluded(Query<Element>.root()).predicate
        let combined = query.predicate.map { .and([$0, expression]) } ?? expression
        return refined(predicate: combined, plan: table.map { handle.checkQuery(combined, in: $0) })
    }

    /// The objects sorted by one property (a key path through to-one links is allowed). `nil`s
    /// come first ascending; ties keep the order they had, so sorting sorted results makes the
    /// earlier sort the tie-breaker (`sorted(byKeyPath: "name").sorted(byKeyPath: "age")` orders
    /// by age, then name), as in Realm.
    ///
    /// The key path is part of the program: one that names no property, or reaches into or
    /// through a collection, traps with a message naming it, as Realm raises. For a key path from
    /// a user or the network, use ``sorted(validating:ascending:)``.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The objects sorted by a property of the object (`\Dog.age`); ties keep the order they had.
    public func sorted<T: _Persistable>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// The objects sorted by several properties, in order of precedence; ties keep the order
    /// they had. A key path that does not fit traps, as in ``sorted(byKeyPath:ascending:)``.
    public func sorted<S: Sequence>(by descriptors: S) -> Results<Element> where S.Element == SortDescriptor {
        Realm.trappingInvalidInput { try sorted(validating: Array(descriptors)) }
    }

    /// ``sorted(byKeyPath:ascending:)`` for a key path from outside the program (a request's
    /// `sort` parameter): one that does not fit throws instead of trapping.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the key path and the problem.
    public func sorted(validating keyPath: String, ascending: Bool = true) throws -> Results<Element> {
        try sorted(validating: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// `sorted(by:)` for key paths from outside the program.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the first key path that does not fit.
    public func sorted<S: Sequence>(validating descriptors: S) throws -> Results<Element> where S.Element == SortDescriptor {
        let descriptors = Array(descriptors)
        if let table { for descriptor in descriptors { try handle.validateKeyPath(descriptor.keyPath, in: table, for: .sort) } }
        var sorted = query
        sorted.append(.sort(descriptors.map { SortKey(keyPath: $0.keyPath, ascending: $0.ascending) }))
        return Results(realm: handle, query: sorted)
    }

    /// One object per distinct combination of the values at `keyPaths`: the first in the order so
    /// far (after a sort, the first in sorted order; otherwise the first stored). A
    /// key path that does not fit traps, as in ``sorted(byKeyPath:ascending:)``.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == String {
        Realm.trappingInvalidInput { try distinct(validating: Array(keyPaths)) }
    }

    /// `distinct(by:)` with key paths of the object's own properties (`[\Dog.name]`).
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Element == PartialKeyPath<Element> {
        distinct(by: keyPaths.map(QueryKeyPaths.name(ofProperty:)))
    }

    /// `distinct(by:)` for key paths from outside the program.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the first key path that does not fit.
    public func distinct<S: Sequence>(validating keyPaths: S) throws -> Results<Element> where S.Element == String {
        let paths = Array(keyPaths)
        if let table { for path in paths { try handle.validateKeyPath(path, in: table, for: .distinct) } }
        var distinct = query
        distinct.append(.distinct(paths))
        return Results(realm: handle, query: distinct)
    }

    /// The position of the first object matching a predicate, or nil. A predicate that does not
    /// fit traps, as in ``filter(_:_:)``.
    public func index(matching predicateFormat: String, _ arguments: Any...) -> Int? {
        Realm.trappingInvalidInput { try index(validating: predicateFormat, argumentArray: arguments) }
    }

    /// `index(matching:_:)` for a predicate from outside the program: one that does
    /// not fit throws, as in ``filter(validating:_:)``.
    ///
    /// - Throws: ``Realm/Error/Code/invalidInput`` naming the problem and its offset.
    public func index(validating predicateFormat: String, _ arguments: Any...) throws -> Int? {
        try index(validating: predicateFormat, argumentArray: arguments)
    }

    func index(validating predicateFormat: String, argumentArray arguments: [Any]) throws -> Int? {
        let matching = Set(try filter(validating: predicateFormat, argumentArray: arguments).keys())
        return keys().firstIndex { matching.contains($0) }
    }

    /// The position of the first object matching a type-safe query, or nil.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        let matching = Set(self.where(isIncluded).keys())
        return keys().firstIndex { matching.contains($0) }
    }

    /// These results further filtered; `plan`, when known, is the predicate's plan under the
    /// handle's current schema, so it is not bound again.
    private func refined(predicate: QueryExpression, plan: QueryPlan?, ordering: [QueryDescriptor] = []) -> Results<Element> {
        var refined = query
        refined.predicate = predicate
        for descriptor in ordering { refined.append(descriptor) }
        let results = Results(realm: handle, query: refined)
        if let plan { results.cache.store(plan, for: handle.catalog) }
        return results
    }

    // MARK: Aggregates

    /// The smallest value of a numeric or date property (nil if there are no values).
    public func min<T: _Persistable>(ofProperty property: String) -> T? {
        aggregate(.min, property)
    }

    /// The largest value of a numeric or date property (nil if there are no values).
    public func max<T: _Persistable>(ofProperty property: String) -> T? {
        aggregate(.max, property)
    }

    /// The sum of a numeric property (0 if there are no values).
    public func sum<T: _Persistable>(ofProperty property: String) -> T {
        aggregate(.sum, property) ?? T._rlmDefaultValue
    }

    /// The average of a numeric property, as a `Double` (nil if there are no values).
    public func average<T: _Persistable>(ofProperty property: String) -> T? {
        aggregate(.average, property)
    }

    /// The smallest value at a key path (nil if there are no values).
    public func min<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? {
        min(ofProperty: QueryKeyPaths.name(of: keyPath))
    }

    /// The largest value at a key path (nil if there are no values).
    public func max<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? {
        max(ofProperty: QueryKeyPaths.name(of: keyPath))
    }

    /// The sum of the values at a key path.
    public func sum<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T {
        sum(ofProperty: QueryKeyPaths.name(of: keyPath))
    }

    /// The average of the values at a key path (nil if there are no values), in the property's
    /// type as Realm Swift returns it: ask for a `Double` property, or use
    /// ``average(ofProperty:)`` with `Double` as the result type, for a fractional average of
    /// integers.
    public func average<T: _Persistable>(of keyPath: KeyPath<Element, T>) -> T? {
        average(ofProperty: QueryKeyPaths.name(of: keyPath))
    }

    private func aggregate<T: _Persistable>(_ kind: QueryAggregate, _ property: String) -> T? {
        guard let table else { return nil }
        let keys = isWholeTable ? nil : keys()
        return AggregateValue.converted(handle.query(table) { try $0.aggregate(kind, of: property, keys: keys, in: table) }, kind)
    }
}
