internal import RealmRuntime

/// `List` and `MutableSet`: a collection property of ``RealmCollectionValue`` elements, an array
/// while unmanaged and a ``CollectionLocation`` once managed. Their `_Persistable` conformance
/// and their stored content are written once, here.
///
/// The protocol is internal; its extension's `public` members are the witnesses of the public
/// `_Persistable` requirements (Swift lets a witness of a public requirement come from an
/// internal protocol's extension), so `List<Dog>._rlmType` and the rest keep their public
/// shape. Both conformers are final classes, so the `Self` requirements are sound.
protocol ElementCollection: _Persistable, RealmCollectionContent, Sequence where Element: RealmCollectionValue {
    /// How the collection is stored: `.list` or `.set`.
    static var collectionKind: CollectionKind { get }
    /// An empty, unmanaged collection.
    init()
    /// The managed collection at `location`.
    init(location: CollectionLocation)
    /// Adds `element` to an unmanaged collection made from elements given as values (a set
    /// keeps one of repeated elements).
    func appendUnmanaged(_ element: Element)
}

extension ElementCollection {
    /// An empty collection.
    public static var _rlmDefaultValue: Self { Self() }

    /// A collection of the element type.
    public static var _rlmType: _RealmPropertyType {
        var type = Element._rlmType
        type.collection = collectionKind
        return type
    }

    /// A live collection of the managed object's property.
    public static func _rlmGet(_ object: ObjectBase, column: Int) -> Self {
        Self(location: CollectionLocation(owner: object, column: column))
    }

    /// The collection, read when stored.
    public var _rlmValue: _RealmValue { _RealmValue(.collection(self)) }

    /// A collection given as elements, or this type of collection itself.
    public static func _rlmFromValue(_ stored: _RealmValue) -> Self? {
        switch stored.storage {
        case .collection(let collection as Self): return collection
        case .elements(let values):
            let collection = Self()
            for value in values {
                guard let element = Element._rlmFromValue(value) else { return nil }
                collection.appendUnmanaged(element)
            }
            return collection
        default: return nil
        }
    }

    /// The elements, in iteration order, as values to store.
    var _rlmContent: _RealmValue { _RealmValue(.elements(map(\._rlmValue))) }
}
