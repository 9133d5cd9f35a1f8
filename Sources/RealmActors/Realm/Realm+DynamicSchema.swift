internal import RealmRuntime

extension Realm {
    /// Adds classes described at run time to the realm's schema, in the current write
    /// transaction: what a program that learns a schema from data rather than from Swift
    /// classes needs (`realm-inspect load` reading a dump). Their objects are then read and
    /// written through the dynamic API: ``dynamicObjects(_:)``, ``dynamicCreate(_:value:update:)``,
    /// ``DynamicObject``.
    ///
    /// A class the realm has already must match its description exactly (adding it again does
    /// nothing); changing a class is a migration (<doc:Migrations>). Links may point at classes
    /// in `schemas` or in the realm.
    ///
    /// ```swift
    /// try realm.write {
    ///     try realm.addObjectSchemas([
    ///         ObjectSchema(className: "Dog", properties: [
    ///             Property(name: "id", type: .int, isPrimary: true),
    ///             Property(name: "name", type: .string),
    ///         ]),
    ///     ])
    ///     realm.dynamicCreate("Dog", value: ["id": 1, "name": "Rex"])
    /// }
    /// ```
    ///
    /// - Throws: ``Realm/Error`` `.schemaMismatch` if a class exists with other properties;
    ///   `.invalidInput` for a description that cannot be stored (a link to a class that exists
    ///   nowhere, a primary key or index of a type that cannot have one, a duplicate or
    ///   over-long name, a class described twice, a linking-objects property whose origin is
    ///   not a link here). Nothing is added then.
    /// - Precondition: in a write transaction (traps otherwise, as every write does).
    public func addObjectSchemas(_ schemas: [ObjectSchema]) throws {
        let write = requireWrite()
        let described = schemas.map(Self.info(of:))
        var names = Set<String>()
        for schema in described where !names.insert(schema.className).inserted {
            throw Realm.Error(.invalidInput, "Class '\(schema.className)' is described twice")
        }
        let known = Dictionary(catalog.tables.values.map { ($0.name, $0.schema) }) { first, _ in first }
            .merging(described.map { ($0.className, $0) }) { _, new in new }
        var next = catalog.stored
        for schema in described {
            for property in schema.properties where property.kind == .object {
                guard let target = property.objectClassName, known[target] != nil else {
                    throw Realm.Error(.invalidInput, "Property '\(schema.className).\(property.name)' links to '\(property.objectClassName ?? "?")', a class that is neither in the realm nor described")
                }
            }
            do {
                try schema.validateLinkingObjects { known[$0] }
                if let table = catalog.tables[schema.className] {
                    try SchemaMigration.checkMatches(table, schema, opened: nil, configuration: configuration)
                    continue
                }
                next.tables.append(try write.createTable(schema))
            } catch let error as Realm.Error {
                throw error
            } catch {
                throw Realm.Error.from(error, configuration: configuration)
            }
        }
        if next.tables.count != catalog.stored.tables.count { replaceCatalog(next) }
    }

    /// The object store's description of a class described through the public types.
    private static func info(of schema: ObjectSchema) -> ObjectSchemaInfo {
        ObjectSchemaInfo(
            className: schema.className,
            properties: schema.properties.map { property in
                PropertyInfo(name: property.name, kind: kind(of: property.type), isOptional: property.isOptional,
                             isPrimaryKey: property.isPrimary, isIndexed: property.isIndexed && !property.isPrimary,
                             objectClassName: property.objectClassName,
                             collection: property.isArray ? .list : property.isSet ? .set : property.isMap ? .map : nil)
            },
            isEmbedded: schema.isEmbedded,
            linkingObjects: schema.computedProperties.map {
                LinkingObjectsInfo(name: $0.name, originClass: $0.objectClassName ?? "", originProperty: $0.linkOriginPropertyName ?? "")
            })
    }

    private static func kind(of type: PropertyType) -> PropertyKind {
        switch type {
        case .int: .int
        case .bool: .bool
        case .string: .string
        case .data: .data
        case .date: .date
        case .float: .float
        case .double: .double
        case .object, .linkingObjects: .object
        case .objectId: .objectId
        case .decimal128: .decimal128
        case .UUID: .uuid
        case .any: .mixed
        }
    }
}
