import Foundation

/// A key path from the queried object: link hops, then the final property.
package struct BoundPath: Sendable {
    /// Link properties followed before the last step (to-one links or collections of links).
    package var hops: [PathStep]
    /// The property compared.
    package var last: PathStep
    package var aggregate: QueryAggregate?

    /// Whether the path can reach several values (through or into a collection).
    package var isMultiValued: Bool {
        hops.contains(where: \.isMultiValued) || (last.isMultiValued && (aggregate == nil || last.aggregatesEachValue(aggregate)))
    }

    /// The kind of the values compared (after the aggregate).
    package var valueKind: PropertyKind {
        switch aggregate {
        case .count: .int
        case .type: .string
        case .average: .double
        case .sum where last.property.kind == .decimal128: .double
        case .min, .max, .sum: last.property.kind == .float ? .double : last.property.kind
        case nil: last.selection == .keys && last.nested.isEmpty ? .string : last.property.kind
        }
    }
}

extension BoundPath {
    /// Resolves a key path (`age`, `owner.name`) of `table`, for sorting and aggregates.
    package static func resolve(_ keyPath: String, in table: Table, catalog: SchemaCatalog) throws -> BoundPath {
        try QueryBinder(catalog: catalog, variables: [:])
            .resolve(keyPath.split(separator: ".").map(String.init), aggregate: nil, from: table, at: 0)
    }
}

extension BoundPath {
    /// Whether no step walks a link backwards (`LinkingObjects`).
    var followsOnlyOutgoingLinks: Bool { last.backlinkFrom == nil && hops.allSatisfy { $0.backlinkFrom == nil } }
}
