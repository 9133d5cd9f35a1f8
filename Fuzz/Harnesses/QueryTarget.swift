import Foundation
import RealmActors
import RealmObjectStore

/// `query`: a Realm Query Language predicate (the input as UTF-8), parsed, bound and evaluated
/// against each class of ``FuzzModels`` in an in-memory realm, through the throwing
/// `filter(validating:)` — what a server does with a predicate a client sent. A line break
/// splits the input: the predicate, then a key path to sort by (`sorted(validating:)`).
///
/// What must hold: the predicate is refused with a thrown error, or its results count and read;
/// nothing leaks. The three classes share one parse through the process's template cache (the
/// second and third look it up), which is emptied after each input: LeakSanitizer cannot follow
/// the indirect-enum boxes of a kept template, and a suppression by the cache's frame misses
/// the templates of deeply nested predicates, whose allocation stacks are deeper than it records.
final class QueryTarget: FuzzTarget {
    private let realm: Realm

    init() {
        realm = FuzzModels.populatedRealm(named: "query")
    }

    func run(_ input: Data) -> String {
        defer { QueryTemplateCache.shared.removeAll() }
        let text = String(decoding: input, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let predicate = String(parts[0])
        let sortKey = parts.count > 1 ? String(parts[1]) : nil
        return [query(realm.objects(FuzzItem.self), predicate, sortKey), query(realm.objects(FuzzPart.self), predicate, sortKey),
                query(realm.objects(FuzzBox.self), predicate, sortKey)].joined(separator: "; ")
    }

    private func query<Element: Object>(_ results: Results<Element>, _ predicate: String, _ sortKey: String?) -> String {
        do {
            var filtered = try results.filter(validating: predicate, argumentArray: [Int(1), "milk", Double(2.5)])
            if let sortKey { filtered = try filtered.sorted(validating: sortKey) }
            let read = filtered.reduce(0) { total, object in total + (object.isInvalidated ? 0 : 1) }
            return "\(Element.className()): \(filtered.count) matches, \(read) read"
        } catch {
            return "\(Element.className()): refused"
        }
    }
}
