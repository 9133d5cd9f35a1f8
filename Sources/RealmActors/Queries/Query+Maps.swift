internal import RealmRuntime

/// `Map` in queries: its keys, its values and the value of one key.
public protocol _QueryMap: _QueryCollection {
    /// The key type.
    associatedtype _QueryKey: _MapKey
}
extension Map: _QueryMap { public typealias _QueryKey = Key }

extension Query where T: _QueryMap {
    /// The value for `key`, nil when the map has no such key: `$0.prices["eur"] > 3` is
    /// `prices['eur'] > 3`.
    public subscript(key: T._QueryKey) -> Query<T._QueryElement> {
        appending(QuerySubscript.key(key._rlmKey).component)
    }

    /// Every value of the map: `$0.prices.values > 3` is `prices.@values > 3` (any value; with
    /// `ALL`/`NONE` in the query language, every or none).
    public var values: Query<T._QueryElement> { appending("@values") }
}

extension Query where T: _QueryMap, T._QueryKey == String {
    /// Every key of the map: `$0.prices.keys == "eur"` is `prices.@keys == 'eur'`, and
    /// `$0.prices.keys.starts(with: "e")` is `prices.@keys BEGINSWITH 'e'`.
    public var keys: Query<String> { appending("@keys") }
}
