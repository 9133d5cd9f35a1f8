internal import RealmRuntime

/// `AnyRealmValue` in queries: stepping into the list or dictionary a value holds.
extension Query where T == AnyRealmValue {
    /// The element at `position` of the list the value holds (no element when it holds none, or
    /// a shorter list): `$0.value[0] == .int(1)` is `value[0] == 1`.
    public subscript(position: Int) -> Query<AnyRealmValue> {
        precondition(position >= 0, "Index \(position) is out of bounds")
        return appending(QuerySubscript.index(position).component)
    }

    /// The value for `key` of the dictionary the value holds: `$0.value["size"] == .int(2)` is
    /// `value['size'] == 2`.
    public subscript(key: String) -> Query<AnyRealmValue> {
        appending(QuerySubscript.key(key).component)
    }

    /// Every element of the list or value of the dictionary the value holds:
    /// `$0.value.any == .int(1)` is `value[*] == 1`.
    public var any: Query<AnyRealmValue> { appending(QuerySubscript.all.component) }
}
