import Foundation
internal import RealmRuntime

/// Learns a class's persisted properties from an instance, with `Mirror` (Linux has no class
/// enumeration and no Objective-C runtime): the `@Persisted` wrappers, superclass properties
/// first, in declaration order. Cached per class for the life of the process.
///
/// Every cache below is guarded by its own lock; reflection (which runs user code, `init()`)
/// happens outside them, so two threads may discover a class at once and store the same result.
enum ObjectSchemaDiscovery {
    private static let cache = Lock<[ObjectIdentifier: ObjectSchemaInfo]>([:])
    /// Every class whose schema was discovered, by class name, so that links (which record only
    /// the class name) can make accessors of the right Swift class.
    private static let registry = Lock<[String: ObjectBase.Type]>([:])

    static func schema(for type: ObjectBase.Type) -> ObjectSchemaInfo {
        let id = ObjectIdentifier(type)
        if let known = cache.withLock({ $0[id] }) { return known }
        // Reflect outside the lock: `init()` is user code and may touch other classes.
        let instance = type.init()
        let children = persistedChildren(of: instance)
        if children.isEmpty, type != DynamicObject.self {
            refuseLegacyModel(instance)
        }
        let properties = children.compactMap { $0.property.propertyInfo(name: $0.name) }
        let linkingObjects = children.compactMap { child in
            child.property.originPropertyName.flatMap { origin in
                child.property.linkedType.map { LinkingObjectsInfo(name: child.name, originClass: $0.className(), originProperty: origin) }
            }
        }
        let info = ObjectSchemaInfo(className: className(of: type), properties: properties,
                                    isEmbedded: type is EmbeddedObject.Type, linkingObjects: linkingObjects)
        cache.withLock { $0[id] = info }
        // The classes it links to are registered by name too, so that nested values
        // (`Person(value: ["dog": ["name": "Rex"]])`) can make their objects.
        let linked = children.compactMap(\.property.linkedType)
        registry.withLock { registry in
            registry[info.className] = type
            for linkedType in linked where registry[linkedType.className()] == nil { registry[linkedType.className()] = linkedType }
        }
        return info
    }

    /// `type` and every class it links to, directly or through other classes (Realm registers
    /// linked classes with the class that links to them).
    static func linkedClosure(of type: ObjectBase.Type) -> [ObjectBase.Type] {
        var result: [ObjectBase.Type] = []
        var seen = Set<ObjectIdentifier>()
        var pending = [type]
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            _ = schema(for: next)
            result.append(next)
            pending += linkedTypes(of: next)
        }
        return result
    }

    private static let linkedTypesCache = Lock<[ObjectIdentifier: [ObjectBase.Type]]>([:])

    /// The classes `type`'s properties link to (including through `LinkingObjects`).
    static func linkedTypes(of type: ObjectBase.Type) -> [ObjectBase.Type] {
        let id = ObjectIdentifier(type)
        if let known = linkedTypesCache.withLock({ $0[id] }) { return known }
        let types = persistedChildren(of: type.init()).compactMap(\.property.linkedType)
        linkedTypesCache.withLock { $0[id] = types }
        return types
    }

    /// The class registered under a class name, if its schema was discovered in this process.
    static func registeredType(named name: String) -> ObjectBase.Type? {
        registry.withLock { $0[name] }
    }

    static func className(of type: ObjectBase.Type) -> String {
        type.className()
    }

    /// Traps if `object`'s class declares stored properties and none of them is `@Persisted`: a
    /// model in Realm's legacy style (`@objc dynamic var name = ""`, `let dogs = List<Dog>()`),
    /// which this library cannot read without the Objective-C runtime and would otherwise store
    /// as an object with no properties. (In a class that has `@Persisted` properties, others are
    /// ignored, as in Realm.)
    private static func refuseLegacyModel(_ object: ObjectBase) {
        var mirror: Mirror? = Mirror(reflecting: object)
        var names: [String] = []
        while let current = mirror, current.subjectType != ObjectBase.self, current.subjectType != Object.self,
              current.subjectType != EmbeddedObject.self {
            names += current.children.compactMap(\.label)
            mirror = current.superclassMirror
        }
        guard let first = names.first else { return }
        let className = type(of: object).className()
        fatalError("Class '\(className)' declares no @Persisted property but stores '\(first)'"
                   + (names.count > 1 ? " and \(names.count - 1) more" : "")
                   + ": RealmActors persists only properties declared with @Persisted (Realm's legacy "
                   + "`@objc dynamic var` and `let list = List<T>()` declarations are not supported). "
                   + "Declare it `@Persisted var \(first.hasPrefix("_") ? String(first.dropFirst()) : first) = …`.")
    }

    /// The `@Persisted` wrappers of an instance with their property names, in column order.
    static func persistedChildren(of object: ObjectBase) -> [(name: String, property: any PersistedProperty)] {
        var levels: [[(String, any PersistedProperty)]] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            levels.append(current.children.compactMap { child in
                guard let label = child.label, let property = child.value as? any PersistedProperty else { return nil }
                return (label.hasPrefix("_") ? String(label.dropFirst()) : label, property)
            })
            mirror = current.superclassMirror
        }
        return levels.reversed().flatMap { $0 }
    }

    /// An unmanaged object's values by property name: those given by name (`Object(value:)`,
    /// `obj["name"] = …`) and, for every other property, its wrapper's (see
    /// ``PersistedFieldLayout``; reflection only where the runtime cannot enumerate fields).
    static func unmanagedValues(of object: ObjectBase) -> [String: _RealmValue] {
        var values = object.dynamicValues ?? [:]
        if let layout = PersistedFieldLayout.of(type(of: object)) {
            layout.forEachValue(in: object) { index, value in
                let name = layout.fields[index].name
                if values[name] == nil { values[name] = value }
            }
            return values
        }
        for (name, property) in persistedChildren(of: object) where values[name] == nil && type(of: property).storesValue {
            values[name] = property.unmanagedRealmValue
        }
        return values
    }
}

extension PropertyInfo {
    /// Converts a value given by name (from a dictionary, an array, `obj["x"] = …`) to the
    /// property's stored form, or throws `invalidInput` naming the property.
    func columnValue(from value: Any?, className: String) throws -> ColumnValue {
        func invalid() -> Realm.Error {
            Realm.Error(.invalidInput, "Invalid value '\(value.map { "\($0)" } ?? "nil")' of type '\(value.map { "\(type(of: $0))" } ?? "nil")' for '\(kind.rawValue)\(isOptional ? "?" : "")' property '\(className).\(name)'.")
        }
        // The common exact types first: the general path below (casts to `NSNull` and to a
        // protocol, a `Mirror`) was most of the time of a migration block's `newObject["age"] = …`.
        switch (kind, value) {
        case (.int, let int as Int): return .int(Int64(int))
        case (.string, let string as String): return .bytes(Array(string.utf8))
        case (.double, let double as Double): return .double(double)
        case (.bool, let bool as Bool): return .bool(bool)
        default: break
        }
        guard let value, !(value is NSNull) else {
            guard isOptional else { throw invalid() }
            return .null
        }
        // A persistable enum case stores its raw value.
        if let enumCase = value as? any PersistableEnum {
            return try columnValue(from: rawValue(of: enumCase), className: className)
        }
        // So does a custom persistable value its persisted value.
        if let custom = value as? any _CustomPersistable {
            return try columnValue(from: persistedValue(of: custom), className: className)
        }
        // Unwrap optionals hidden inside `Any`.
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return try columnValue(from: nil, className: className) }
            return try columnValue(from: wrapped, className: className)
        }
        switch kind {
        case .bool:
            if let bool = value as? Bool { return .bool(bool) }
        case .int:
            if let int = value as? any BinaryInteger, let exact = Int64(exactly: int) { return .int(exact) }
        case .float:
            if let float = value as? Float { return .float(float) }
            if let double = value as? Double { return .float(Float(double)) }
            if let int = value as? Int { return .float(Float(int)) }
        case .double:
            if let double = value as? Double { return .double(double) }
            if let float = value as? Float { return .double(Double(float)) }
            if let int = value as? Int { return .double(Double(int)) }
        case .string:
            if let string = value as? String { return .bytes(Array(string.utf8)) }
        case .data:
            if let data = value as? Data { return .bytes(Array(data)) }
        case .date:
            if let date = value as? Date { return .double(date.timeIntervalSinceReferenceDate) }
        case .uuid:
            if let uuid = value as? UUID { return uuid._rlmValue.value }
        case .objectId:
            if let id = value as? ObjectId { return id._rlmValue.value }
        case .decimal128:
            if let decimal = value as? Decimal128 { return decimal._rlmValue.value }
            if let int = value as? any BinaryInteger, let exact = Decimal128(exactly: int) { return exact._rlmValue.value }
            if let double = value as? Double { return Decimal128(double)._rlmValue.value }
            if let float = value as? Float { return Decimal128(Double("\(float)") ?? Double(float))._rlmValue.value }
            if let string = value as? String, let parsed = try? Decimal128(string: string) { return parsed._rlmValue.value }
        case .object, .mixed:
            break
        }
        throw invalid()
    }

    private func rawValue<E: PersistableEnum>(of value: E) -> Any { value.rawValue }

    private func persistedValue<C: _CustomPersistable>(of value: C) -> Any { value.persistableValue }

    /// A stored scalar as the Swift value dynamic access returns.
    func swiftValue(_ value: ColumnValue) -> Any? {
        switch (kind, value) {
        case (_, .null): return nil
        case (.bool, .bool(let bool)): return bool
        case (.int, .int(let int)): return Int(int)
        case (.float, .float(let float)): return float
        case (.double, .double(let double)): return double
        case (.date, .double(let seconds)): return Date(timeIntervalSinceReferenceDate: seconds)
        case (.string, .bytes(let bytes)): return String(decoding: bytes, as: UTF8.self)
        case (.data, .bytes(let bytes)): return Data(bytes)
        case (.uuid, .fixed): return UUID._rlmFromValue(_RealmValue(value))
        case (.objectId, .fixed): return ObjectId._rlmFromValue(_RealmValue(value))
        case (.decimal128, .fixed): return Decimal128._rlmFromValue(_RealmValue(value))
        default: return nil
        }
    }
}
