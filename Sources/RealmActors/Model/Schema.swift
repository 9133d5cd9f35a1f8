internal import RealmRuntime

/// The type of a persisted property: Realm Swift's `PropertyType`.
public enum PropertyType: Int, Sendable, CustomStringConvertible {
    /// `Int` and its sized variants.
    case int = 0
    /// `Bool`.
    case bool = 1
    /// `String`.
    case string = 2
    /// `Data`.
    case data = 3
    /// `Date`.
    case date = 4
    /// `Float`.
    case float = 5
    /// `Double`.
    case double = 6
    /// A link to another object.
    case object = 7
    /// `LinkingObjects`: the objects linking to this one through a property (a computed
    /// property, listed in ``ObjectSchema/computedProperties``).
    case linkingObjects = 8
    /// `ObjectId`.
    case objectId = 10
    /// `Decimal128`.
    case decimal128 = 11
    /// `UUID` (Realm Swift's spelling of the case).
    case UUID = 12
    /// `AnyRealmValue`: a value of any type.
    case any = 9

    init(_ kind: PropertyKind) {
        switch kind {
        case .bool: self = .bool
        case .int: self = .int
        case .float: self = .float
        case .double: self = .double
        case .string: self = .string
        case .data: self = .data
        case .date: self = .date
        case .objectId: self = .objectId
        case .uuid: self = .UUID
        case .decimal128: self = .decimal128
        case .object: self = .object
        case .mixed: self = .any
        }
    }

    /// The type's name as Realm prints it ("int", "string", …).
    public var description: String {
        switch self {
        case .int: "int"
        case .bool: "bool"
        case .string: "string"
        case .data: "data"
        case .date: "date"
        case .float: "float"
        case .double: "double"
        case .object: "object"
        case .objectId: "object id"
        case .decimal128: "decimal128"
        case .UUID: "uuid"
        case .linkingObjects: "linking objects"
        case .any: "mixed"
        }
    }
}

/// One persisted property of a class in a realm's schema.
public struct Property: Sendable, Equatable, CustomStringConvertible {
    /// The property's name.
    public let name: String
    /// What the property holds.
    public let type: PropertyType
    /// Whether it may be nil.
    public let isOptional: Bool
    /// Whether it has a secondary index (a primary key is indexed too).
    public let isIndexed: Bool
    /// Whether it is the class's primary key.
    public let isPrimary: Bool
    /// The linked class's name, for links.
    public let objectClassName: String?
    /// Whether it is a `List` (`type` and `isOptional` describe the elements).
    public let isArray: Bool
    /// Whether it is a `MutableSet`.
    public let isSet: Bool
    /// Whether it is a `Map` (`type` and `isOptional` describe the values).
    public let isMap: Bool
    /// For a `LinkingObjects` property, the property of ``objectClassName`` that links here.
    public let linkOriginPropertyName: String?

    /// The property's name in the file: ``name`` (RealmActors does not rename properties).
    public var columnName: String { name }

    /// Describes a property, for classes created at run time (``Realm/addObjectSchemas(_:)``):
    /// as Realm's `RLMProperty(name:type:objectClassName:linkOriginPropertyName:indexed:optional:)`.
    ///
    /// For a collection, `type`, `objectClassName` and `isOptional` describe its elements (a
    /// map's values). A link (`type: .object`) names its target in `objectClassName`; a
    /// `.linkingObjects` property names the linking class there and the link property in
    /// `linkOriginPropertyName`, and is listed among ``ObjectSchema/computedProperties``.
    public init(name: String, type: PropertyType, objectClassName: String? = nil, linkOriginPropertyName: String? = nil,
                isOptional: Bool = false, isIndexed: Bool = false, isPrimary: Bool = false,
                isArray: Bool = false, isSet: Bool = false, isMap: Bool = false) {
        self.name = name
        self.type = type
        self.objectClassName = objectClassName
        self.linkOriginPropertyName = linkOriginPropertyName
        self.isOptional = isOptional
        self.isIndexed = isIndexed || isPrimary
        self.isPrimary = isPrimary
        self.isArray = isArray || type == .linkingObjects
        self.isSet = isSet
        self.isMap = isMap
    }

    init(_ info: LinkingObjectsInfo) {
        name = info.name
        type = .linkingObjects
        isOptional = false
        isIndexed = false
        isPrimary = false
        objectClassName = info.originClass
        isArray = true
        isSet = false
        isMap = false
        linkOriginPropertyName = info.originProperty
    }

    init(_ info: PropertyInfo) {
        name = info.name
        type = PropertyType(info.kind)
        isOptional = info.isOptional
        isIndexed = info.isIndexed || info.isPrimaryKey
        isPrimary = info.isPrimaryKey
        objectClassName = info.objectClassName
        isArray = info.collection == .list
        isSet = info.collection == .set
        isMap = info.collection == .map
        linkOriginPropertyName = nil
    }

    /// `name {type, optional, indexed}`-style summary.
    public var description: String {
        var flags = ["type = \(type)"]
        if let objectClassName { flags.append("objectClassName = \(objectClassName)") }
        if isArray || isSet || isMap { flags.append("collection = \(isArray ? "list" : isSet ? "set" : "map")") }
        flags.append("indexed = \(isIndexed ? "YES" : "NO")")
        flags.append("isPrimary = \(isPrimary ? "YES" : "NO")")
        flags.append("optional = \(isOptional ? "YES" : "NO")")
        return "\(name) {\n\t\t" + flags.joined(separator: ";\n\t\t") + ";\n\t}"
    }
}

/// The schema of one class in a realm: Realm Swift's `ObjectSchema`.
public struct ObjectSchema: Sendable, Equatable, CustomStringConvertible {
    /// The stored class name.
    public let className: String
    /// The persisted properties, in declaration order.
    public let properties: [Property]
    /// Whether the class is an embedded object.
    public let isEmbedded: Bool
    /// The `LinkingObjects` properties, which are computed from other objects' links.
    public let computedProperties: [Property]

    /// Describes a class, for classes created at run time (``Realm/addObjectSchemas(_:)``):
    /// its stored properties in order, and its `LinkingObjects` properties apart.
    public init(className: String, properties: [Property], isEmbedded: Bool = false, computedProperties: [Property] = []) {
        self.className = className
        self.properties = properties
        self.isEmbedded = isEmbedded
        self.computedProperties = computedProperties
    }

    init(_ info: ObjectSchemaInfo) {
        className = info.className
        properties = info.properties.map(Property.init)
        isEmbedded = info.isEmbedded
        computedProperties = info.linkingObjects.map(Property.init)
    }

    /// The class the objects are made of: the model class of this name if this process knows
    /// it, else ``DynamicObject``.
    public var objectClass: ObjectBase.Type {
        ObjectSchemaDiscovery.registeredType(named: className) ?? DynamicObject.self
    }

    /// The primary key property, if the class has one.
    public var primaryKeyProperty: Property? { properties.first { $0.isPrimary } }

    /// The property with the given name, if any.
    public subscript(propertyName: String) -> Property? {
        properties.first { $0.name == propertyName }
    }

    /// The class and its properties, as Realm prints schemas.
    public var description: String {
        "\(className) {\n\t" + properties.map(\.description).joined(separator: "\n\t") + "\n}"
    }
}

/// The classes a realm stores: Realm Swift's `Schema`.
public struct Schema: Sendable, Equatable, CustomStringConvertible {
    /// Every class, sorted by name.
    public let objectSchema: [ObjectSchema]

    init(_ catalog: SchemaCatalog) {
        self.init(catalog.tables.values.map(\.schema))
    }

    init(_ classes: [ObjectSchemaInfo]) {
        objectSchema = classes.map(ObjectSchema.init).sorted { $0.className < $1.className }
    }

    /// The schema of the class with the given name, if the realm stores it.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    /// Every class's schema.
    public var description: String {
        "Schema {\n" + objectSchema.map(\.description).joined(separator: "\n") + "\n}"
    }
}

extension Realm {
    /// The classes this realm stores at its current version.
    public var schema: Schema { Schema(catalog) }
}
