package import RealmStorage

/// What a property holds, independent of how the storage layer lays it out.
package enum PropertyKind: String, Codable, Sendable, CaseIterable {
    case bool, int, float, double, string, data, date, objectId, uuid, decimal128
    /// A link to an object of `PropertyInfo.objectClassName`.
    case object
    /// `AnyRealmValue`: any of the other kinds, tagged (see ``MixedValue``).
    case mixed
}

/// How many values a property holds: one, or a collection stored packed in one byte-string
/// column (see ``PackedCollection``).
package enum CollectionKind: String, Codable, Sendable {
    /// `List`: ordered, duplicates allowed.
    case list
    /// `MutableSet`: distinct elements, kept in a canonical order.
    case set
    /// `Map<String, …>`: string keys (sorted), one value each.
    case map
}

/// One persisted property of a class, as recorded in the file.
package struct PropertyInfo: Codable, Hashable, Sendable, CustomStringConvertible {
    package var name: String
    package var kind: PropertyKind
    package var isOptional: Bool
    package var isPrimaryKey: Bool
    package var isIndexed: Bool
    /// The linked class, for `.object` properties.
    package var objectClassName: String?
    /// Set for `List`, `MutableSet` and `Map` properties; `kind` and `isOptional` then describe
    /// the elements (the map's values).
    package var collection: CollectionKind?

    package init(name: String, kind: PropertyKind, isOptional: Bool = false, isPrimaryKey: Bool = false,
                 isIndexed: Bool = false, objectClassName: String? = nil, collection: CollectionKind? = nil) {
        self.name = name
        self.kind = kind
        self.isOptional = isOptional
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.objectClassName = objectClassName
        self.collection = collection
    }

    /// Whether values of this property refer to objects: links, and `AnyRealmValue`s that may.
    package var canLink: Bool { kind == .object || kind == .mixed }

    /// Whether the table keeps an index tree for the property: for indexed properties and
    /// non-integer primary keys (lookups), and for every property that can link (so that the
    /// objects linking to an object are found in O(log n): backlinks, and unlinking on delete).
    package var hasIndexTree: Bool {
        isIndexed || (isPrimaryKey && kind != .int) || canLink
    }

    /// The property describing one element of a collection property (itself otherwise).
    package var element: PropertyInfo {
        var element = self
        element.collection = nil
        element.isPrimaryKey = false
        element.isIndexed = false
        return element
    }

    /// How the storage layer stores the property: dates and doubles as doubles (a `Date` is a
    /// `Double` of seconds since 2001, so nothing is lost), strings and data as byte strings,
    /// links as the target's object key.
    package var columnSpec: ColumnSpec {
        if collection != nil { return ColumnSpec(.bytes, nullable: false) }
        return switch kind {
        case .bool: ColumnSpec(.bool, nullable: isOptional)
        case .int, .object: ColumnSpec(.int, nullable: isOptional || kind == .object)
        case .float: ColumnSpec(.float, nullable: isOptional)
        case .double, .date: ColumnSpec(.double, nullable: isOptional)
        case .string, .data: ColumnSpec(.bytes, nullable: isOptional)
        case .mixed: ColumnSpec(.bytes, nullable: true)
        case .objectId: ColumnSpec(.fixed, nullable: isOptional, fixedWidth: 12)
        case .uuid, .decimal128: ColumnSpec(.fixed, nullable: isOptional, fixedWidth: 16)
        }
    }

    /// Whether the property can be indexed or be a primary key (Realm's rules).
    package var isIndexable: Bool {
        collection == nil && [.bool, .int, .string, .date, .objectId, .uuid].contains(kind)
    }

    /// The property's type as Swift spells it: `Dog?`, `List<String>`, `Map<String, Int?>`.
    package var typeName: String {
        let element = (kind == .object ? objectClassName ?? "Object" : kind.rawValue) + (isOptional ? "?" : "")
        switch collection {
        case nil: return element
        case .list: return "List<\(element)>"
        case .set: return "MutableSet<\(element)>"
        case .map: return "Map<String, \(element)>"
        }
    }

    package var description: String {
        var text = "\(name): \(typeName)"
        if isPrimaryKey { text += " (primary key)" } else if isIndexed { text += " (indexed)" }
        return text
    }
}

/// A `LinkingObjects` property of a class: computed, not stored in a column — the objects of
/// `originClass` whose `originProperty` links to the object. Recorded with its class so that a
/// query through it binds from the stored schema alone, whichever program opened the file.
package struct LinkingObjectsInfo: Codable, Hashable, Sendable {
    package var name: String
    package var originClass: String
    package var originProperty: String

    package init(name: String, originClass: String, originProperty: String) {
        self.name = name
        self.originClass = originClass
        self.originProperty = originProperty
    }
}

/// One class's persisted properties, in column order, and its linking-objects properties.
package struct ObjectSchemaInfo: Codable, Hashable, Sendable {
    package var className: String
    package var properties: [PropertyInfo]
    package var isEmbedded: Bool
    /// The class's `LinkingObjects` properties, in declaration order. Not columns: adding or
    /// removing one needs no migration (as in Realm), and files written before they were
    /// recorded have none.
    package var linkingObjects: [LinkingObjectsInfo]

    package init(className: String, properties: [PropertyInfo], isEmbedded: Bool = false,
                 linkingObjects: [LinkingObjectsInfo] = []) {
        self.className = className
        self.properties = properties
        self.isEmbedded = isEmbedded
        self.linkingObjects = linkingObjects
    }

    private enum CodingKeys: String, CodingKey {
        case className, properties, isEmbedded, linkingObjects
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        className = try container.decode(String.self, forKey: .className)
        properties = try container.decode([PropertyInfo].self, forKey: .properties)
        isEmbedded = try container.decode(Bool.self, forKey: .isEmbedded)
        linkingObjects = try container.decodeIfPresent([LinkingObjectsInfo].self, forKey: .linkingObjects) ?? []
    }

    /// The linking-objects property `name`, if the class declares one.
    package func linkingObjectsProperty(named name: String) -> LinkingObjectsInfo? {
        linkingObjects.first { $0.name == name }
    }

    package var primaryKey: PropertyInfo? { properties.first { $0.isPrimaryKey } }

    /// Realm's limits and rules for a class definition; thrown as `.invalidInput`.
    package func validate() throws {
        guard !className.isEmpty, className.utf8.count <= 57 else {
            throw StorageError(.invalidInput, "Class name '\(className)' must be 1 to 57 bytes long")
        }
        var names = Set<String>()
        for property in properties {
            guard !property.name.isEmpty, property.name.utf8.count <= 63 else {
                throw StorageError(.invalidInput, "Property name '\(className).\(property.name)' must be 1 to 63 bytes long")
            }
            guard names.insert(property.name).inserted else {
                throw StorageError(.invalidInput, "Property '\(className).\(property.name)' is declared twice")
            }
            // Realm's primary key types: integers, strings, object ids and UUIDs (optional or not).
            if property.isPrimaryKey && (property.collection != nil || ![.int, .string, .objectId, .uuid].contains(property.kind)) {
                throw StorageError(.invalidInput, "Property '\(className).\(property.name)' of type \(property.typeName) cannot be a primary key: use an integer, a String, an ObjectId or a UUID")
            }
            if (property.isPrimaryKey || property.isIndexed) && !property.isIndexable {
                throw StorageError(.invalidInput,
                                   "Property '\(className).\(property.name)' of type \(property.typeName) cannot be \(property.isPrimaryKey ? "a primary key" : "indexed")")
            }
            if property.kind == .object {
                guard property.objectClassName != nil else {
                    throw StorageError(.invalidInput, "Property '\(className).\(property.name)' links to an unknown class")
                }
                // Realm's rules: a to-one link and a map's object values may be nil, list and
                // set elements may not.
                let mustBeOptional = property.collection == nil || property.collection == .map
                if property.isOptional != mustBeOptional {
                    throw StorageError(.invalidInput, mustBeOptional
                        ? "Property '\(className).\(property.name)' of type '\(property.typeName)' must be optional: declare it '\(property.objectClassName!)?'"
                        : "Property '\(className).\(property.name)' of type '\(property.typeName)' cannot hold nil objects")
                }
            }
        }
        if properties.filter(\.isPrimaryKey).count > 1 {
            throw StorageError(.invalidInput, "Class '\(className)' declares more than one primary key")
        }
        if isEmbedded, let key = primaryKey {
            throw StorageError(.invalidInput, "Embedded object '\(className)' cannot have a primary key ('\(key.name)')")
        }
    }

    /// Realm's rule for linking objects: each origin property exists in its class (when
    /// `schema(_:)` knows the class) and links to this class; thrown as `.invalidInput` with
    /// realm-core's wording.
    package func validateLinkingObjects(_ schema: (String) -> ObjectSchemaInfo?) throws {
        for linking in linkingObjects {
            guard let origin = schema(linking.originClass) else { continue }
            let described = "Property '\(linking.originClass).\(linking.originProperty)' declared as origin of linking objects property '\(className).\(linking.name)'"
            guard let property = origin.properties.first(where: { $0.name == linking.originProperty }) else {
                throw StorageError(.invalidInput, "\(described) does not exist")
            }
            guard property.kind == .object, let target = property.objectClassName else {
                throw StorageError(.invalidInput, "\(described) is not a link")
            }
            guard target == className else {
                throw StorageError(.invalidInput, "\(described) links to type '\(target)'")
            }
        }
    }
}
