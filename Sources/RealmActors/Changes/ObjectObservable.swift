public import Dispatch
internal import RealmRuntime

/// What is observed like one object: every object class (through ``FreezableObject``) and
/// every projection class (through ``ProjectionObservable``). The `observe` family both offer is
/// written once, in this protocol's extension for ``Freezable`` conformers (an `ObjectChange`
/// carries a `Frozen<Self>`), over the stream each makes of its object's changes
/// (``_observation(keyPaths:)``). Plumbing: the library conforms objects and projections.
///
/// It does not refine ``Freezable`` itself, so that the public declarations of the two protocols
/// still name `Freezable` among what they inherit.
///
/// No requirement names `Self` inside another type (as `RealmChanges<ObjectChange<Self>>`
/// would): ``Object`` is a non-final class, and Swift lets a non-final class satisfy only
/// requirements that use `Self` as a parameter or a result. So a conformer hands over an opaque
/// ``_ObjectObservation``, and the extension, where `Self` is the observed class, makes the typed
/// stream of it.
public protocol _ObjectObservable {
    /// What the changes of `self` are for `keyPaths` (names, or nil for every property): the
    /// managed object whose changes count, which of its properties count, and how a change is
    /// described. Traps, as `changes(keyPaths:)` does, if `self` is unmanaged or a name is unknown.
    func _observation(keyPaths: [String]?) -> _ObjectObservation

    /// The name a key path of `Self`'s properties (`Root` is always `Self`) stands for among the
    /// names `changes(keyPaths:)` accepts.
    static func _observedName<Root>(of keyPath: PartialKeyPath<Root>) -> String
}

/// How an object or a projection is observed: the managed object whose changes count, the filter
/// of its changes, and how a change of its stored properties is described. Opaque: RealmActors'
/// plumbing for ``_ObjectObservable``.
public struct _ObjectObservation {
    /// The object whose changes are observed: the object itself, or a projection's root.
    let object: ObjectBase
    /// Which changes of the object count.
    let filter: ChangeFilter
    /// The public property changes of a change of the stored properties, given the object's table
    /// and a frozen accessor of the object at the changed version; nil for the changed stored
    /// properties themselves, with their old and new values (an object's changes).
    let describe: (@Sendable ([PropertyValueChange], Table, _ frozenObject: ObjectBase) -> [PropertyChange])?
}

extension _ObjectObservable where Self: Freezable {
    /// The changes of `self` where `keyPaths` count (see ``_observation(keyPaths:)``): what
    /// `changes(keyPaths:)` of an object and of a projection return.
    func observedChanges(keyPaths: [String]?) -> RealmChanges<ObjectChange<Self>> {
        let observation = _observation(keyPaths: keyPaths)
        guard let describe = observation.describe else {
            return observation.object.objectChanges(filter: observation.filter, element: ObjectChange.init)
        }
        return observation.object.objectChanges(filter: observation.filter) { element, configuration in
            ObjectChange(element, configuration: configuration) { changes, table, frozen in
                frozen.readObject { describe(changes, table, $0) }
            }
        }
    }
}

extension _ObjectObservable where Self: Freezable {
    /// Calls `block` on `actor` with each change of this object (or projection) from now on, as
    /// `changes(keyPaths:)` delivers them, until the token is invalidated. Called from the actor
    /// that owns the object (`_isolation`), so the object never leaves it.
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        let changes = observedChanges(keyPaths: keyPaths)
        return await changes.observe(on: actor, firstElement: false, block)
    }

    /// `observe(keyPaths:on:_isolation:_:)` with key paths of the object's (or projection's) own
    /// properties.
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @escaping @Sendable (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        await observe(keyPaths: keyPaths.map(Self._observedName(of:)), on: actor, block)
    }

    /// Calls `block` on `queue` with each change of this object (or projection) from now on,
    /// until the token is invalidated: Realm Swift's callback form (see
    /// `Results.observe(keyPaths:on:_:)` for where elements go without a queue). Payloads are
    /// frozen objects (or frozen projections).
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void) -> NotificationToken {
        observedChanges(keyPaths: keyPaths).observe(on: queue, block)
    }

    /// `observe(keyPaths:on:_:)` with key paths of the object's (or projection's) own properties.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping @Sendable (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map(Self._observedName(of:)), on: queue, block)
    }
}
