internal import RealmRuntime

/// Where the objects of a `Results` come from before filtering: a description, not a closure,
/// so it can be evaluated at any version — by the handle, or by the notifier at each new one.
enum ResultsBase: Sendable {
    /// Every object of the table.
    case table
    /// The objects a list of links holds, in list order (none once the owner is deleted).
    case list(ownerClass: String, ownerKey: UInt64, property: String)
    /// The objects of `originClass` whose `property` links to an object (none once it is deleted).
    case linkingObjects(targetClass: String, targetKey: UInt64, originClass: String, property: String)
    /// Fixed objects (frozen results refined further).
    case keys([UInt64])

    var isTable: Bool {
        if case .table = self { return true }
        return false
    }
}
