import Foundation
package import RealmStorage

// The values a key path reaches from an object: across links and linking objects, into
// collections and nested collections, and aggregated.
extension QueryEvaluator {
    /// The values a path reaches from an object (one for a plain property; the elements of
    /// collections it goes through; one aggregate if it ends in one).
    package func values(at path: BoundPath, _ leaf: ClusterLeaf, _ row: Int) throws -> [ColumnValue] {
        var rows = [(leaf, row)]
        for hop in path.hops {
            if let from = hop.backlinkFrom {
                rows = try backlinkRows(hop, from: from, rows)
                continue
            }
            guard let target = hop.target else { return [] }
            let targetRoot = try root(target.tree)
            var next: [(ClusterLeaf, Int)] = []
            for (currentLeaf, currentRow) in rows {
                let value = try source.value(currentLeaf, row: currentRow, column: hop.column, spec: hop.table.layout[hop.column])
                let keys = hop.selection == nil ? hop.table.linkedKeys(value, column: hop.column)
                    : Self.elements(of: value, hop).compactMap { if case .int(let key) = $0 { UInt64(bitPattern: key) } else { nil } }
                for key in keys {
                    if let found = try source.row(in: targetRoot, key: key) { next.append(found) }
                }
            }
            rows = next
        }
        let last = path.last
        if let from = last.backlinkFrom {  // `owners.@count`, `owners == nil`: the linking objects' keys
            let keys = try backlinkRows(last, from: from, rows).map { ColumnValue.int(Int64(bitPattern: $0.0.key($0.1))) }
            guard let aggregate = path.aggregate else { return keys }
            return [QueryComparisons.aggregate(aggregate, of: keys, kind: .object, isCollection: true)]
        }
        var gathered: [ColumnValue] = []
        for (currentLeaf, currentRow) in rows {
            let value = try source.value(currentLeaf, row: currentRow, column: last.column, spec: last.table.layout[last.column])
            switch (last.property.collection, value) {
            case (nil, _): gathered.append(value)
            case (_, .bytes) where last.selection != nil: gathered += Self.elements(of: value, last)
            case (.map?, .bytes(let bytes)): gathered += PackedCollection.entries(PackedCollection.decode(bytes)).map(\.value)
            case (_, .bytes(let bytes)): gathered += PackedCollection.decode(bytes)
            default: break
            }
        }
        if !last.nested.isEmpty { gathered = gathered.flatMap { Self.nestedValues(of: $0, last.nested[...]) } }
        guard let aggregate = path.aggregate else { return gathered }
        if last.aggregatesEachValue(aggregate) {
            return gathered.map { value in
                if aggregate == .type { return .bytes(Array(QueryValueType.name(ofMixed: value).utf8)) }
                guard let container = MixedPath.container(value) else { return .null }
                return .int(Int64(container.isMap ? container.elements.count / 2 : container.elements.count))
            }
        }
        // (To-one hops reach one value: `friend.name.@count` is the length of the friend's name.)
        return [QueryComparisons.aggregate(aggregate, of: gathered, kind: last.property.kind,
                                           isCollection: last.property.collection != nil || path.hops.contains(where: \.isMultiValued))]
    }

    /// The values `selections` reach inside a stored mixed value (see ``PathStep/nested``): a
    /// dictionary's keys as mixed strings, nothing where a step does not fit the value.
    static func nestedValues(of value: ColumnValue, _ selections: ArraySlice<PathSelection?>) -> [ColumnValue] {
        guard let selection = selections.first else { return [value] }
        guard let (isMap, all) = MixedPath.container(value) else { return [] }
        let values = isMap ? stride(from: 1, to: all.count, by: 2).map { all[$0] } : all
        let picked: [ColumnValue]
        switch selection {
        case nil, .values?: picked = values
        case .first?: picked = isMap ? [] : Array(all.prefix(1))
        case .last?: picked = isMap ? [] : Array(all.suffix(1))
        case .index(let index)?: picked = !isMap && index < all.count ? [all[index]] : []
        case .key(let key)?:
            picked = isMap ? stride(from: 0, to: all.count - 1, by: 2).filter { all[$0] == .bytes(key) }.map { all[$0 + 1] } : []
        case .keys?:
            guard isMap else { return [] }
            return stride(from: 0, to: all.count - 1, by: 2).compactMap {
                guard case .bytes(let key) = all[$0] else { return nil }
                return MixedValue.value(.string, .bytes(key)).stored
            }
        }
        return picked.flatMap { nestedValues(of: $0, selections.dropFirst()) }
    }

    /// The elements of a collection value that `step.selection` keeps (a map's elements are key,
    /// value, key, value…).
    static func elements(of value: ColumnValue, _ step: PathStep) -> [ColumnValue] {
        guard case .bytes(let bytes) = value else { return [] }
        let all = PackedCollection.decode(bytes)
        let isMap = step.property.collection == .map
        switch step.selection {
        case .first?: return all.first.map { [$0] } ?? []
        case .last?: return all.last.map { [$0] } ?? []
        case .index(let index)?: return index < all.count ? [all[index]] : []
        case .key(let key)?:
            guard isMap else { return [] }
            for index in stride(from: 0, to: all.count - 1, by: 2) where all[index] == .bytes(key) { return [all[index + 1]] }
            return []
        case .keys?: return isMap ? stride(from: 0, to: all.count - 1, by: 2).map { all[$0] } : []
        case .values?: return isMap ? stride(from: 1, to: all.count, by: 2).map { all[$0] } : all
        case nil: return isMap ? stride(from: 1, to: all.count, by: 2).map { all[$0] } : all
        }
    }

    /// The rows of the objects of `step.table` whose `step.column` links to any of `rows` (of
    /// table `from`), found in the column's link index.
    private func backlinkRows(_ step: PathStep, from: Table, _ rows: [(ClusterLeaf, Int)]) throws -> [(ClusterLeaf, Int)] {
        guard let index = step.table.indexes[step.column] else { return [] }
        let indexRoot = try root(index)
        let originRoot = try root(step.table.tree)
        var result: [(ClusterLeaf, Int)] = []
        for (leaf, row) in rows {
            let target = leaf.key(row)
            let keys = try source.linkingObjects(to: target, of: from, from: step.table, column: step.column, indexRoot: indexRoot)
            for key in keys {
                guard let found = try source.row(in: originRoot, key: key) else { continue }
                guard step.property.collection != nil else { result.append(found); continue }
                // The index lists an origin once; Realm has a backlink per link, so an origin
                // whose list holds the object twice is there twice (`owners.@count`).
                let value = try source.value(found.0, row: found.1, column: step.column, spec: step.table.layout[step.column])
                let links = step.table.linkedKeys(value, column: step.column).reduce(0) { $0 + ($1 == target ? 1 : 0) }
                for _ in 0..<max(links, 1) { result.append(found) }
            }
        }
        return result
    }

    /// The keys of the objects a path to a collection of links reaches.
    /// (Internal, not private: ``evaluate(_:_:_:_:)`` calls it for a subquery.)
    func objects(at path: BoundPath, _ leaf: ClusterLeaf, _ row: Int) throws -> [UInt64] {
        var plain = path
        plain.aggregate = nil
        return try values(at: plain, leaf, row).compactMap { value in
            if case .int(let key) = value { UInt64(bitPattern: key) } else { nil }
        }
    }
}
