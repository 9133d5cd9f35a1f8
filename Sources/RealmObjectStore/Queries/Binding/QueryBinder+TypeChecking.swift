import Foundation

// The other side of a comparison against the path's type: constants in the property's stored
// form, the operators a type allows, which types compare, and `@type`.
extension QueryBinder {
    /// A query constant in the stored form of `kind`.
    func convert(_ value: QueryValue, to kind: PropertyKind, path: BoundPath, name: String, at position: Int) throws -> ColumnValue {
        func mismatch() -> QueryError {
            QueryError("Cannot compare '\(name)' of type '\(kind.rawValue)' with \(value.typeDescription)", at: position)
        }
        if case .null = value {
            // realm-core: a non-optional property compared with nil is valid and never equal
            // ("ints == NULL" matches nothing); a list of links or linking objects is not a value.
            if kind == .object, path.aggregate == nil, path.isMultiValued {
                throw QueryError("Cannot compare linklist ('\(name)') with NULL", at: position)
            }
            return .null
        }
        switch (kind, value) {
        case (.int, .int(let int)): return .int(int)
        case (.int, .double(let double)): return .double(double)
        case (.int, .bool(let bool)): return .int(bool ? 1 : 0)
        case (.double, .int(let int)), (.float, .int(let int)): return .double(Double(int))
        case (.double, .double(let double)), (.float, .double(let double)): return .double(double)
        // A number for a decimal property: the decimal it stands for, so rows compare exactly.
        // A sum or average of decimals is a double (``QueryComparisons/aggregate``).
        case (.decimal128, .int(let int)): return .fixed(DecimalEncoding.storedBytes(of: int))
        case (.decimal128, .double(let double)): return .fixed(DecimalEncoding.storedBytes(of: double))
        case (.decimal128, .decimal128(let bytes, _)): return .fixed(bytes)
        case (.int, .decimal128(_, let approximately)), (.double, .decimal128(_, let approximately)),
             (.float, .decimal128(_, let approximately)):
            return .double(approximately)
        case (.bool, .bool(let bool)): return .bool(bool)
        case (.bool, .int(let int)) where int == 0 || int == 1: return .bool(int == 1)
        case (.string, .string(let string)): return .bytes(Array(string.utf8))
        case (.data, .data(let bytes)): return .bytes(bytes)
        case (.data, .string(let string)): return .bytes(Array(string.utf8))
        case (.date, .date(let seconds)): return .double(seconds)
        case (.objectId, .objectId(let bytes)): return .fixed(bytes)
        case (.uuid, .uuid(let bytes)): return .fixed(bytes)
        case (.object, .object(let className, let key)):
            guard className == path.last.property.objectClassName else {
                throw QueryError("'\(name)' links to '\(path.last.property.objectClassName ?? "?")', not to '\(className)'", at: position)
            }
            return .int(Int64(bitPattern: key))
        case (.mixed, _): return value.mixedStored
        default: throw mismatch()
        }
    }

    /// Whether the operator applies to the kind (and its options).
    func check(_ op: QueryOperator, on kind: PropertyKind, path: BoundPath, name: String,
               options: QueryStringOptions, at position: Int) throws {
        // Switches, not set literals: binding runs once per query, and W4 runs 10k queries.
        let isStringOperator = switch op { case .beginsWith, .endsWith, .contains, .like: true; default: false }
        let isOrdering = switch op { case .less, .lessOrEqual, .greater, .greaterOrEqual, .between: true; default: false }
        let holdsText = switch kind { case .string, .data, .mixed: true; default: false }
        if isStringOperator && !holdsText {
            throw QueryError("Operator \(op.rawValue) needs a string or data property, but '\(name)' is \(kind.rawValue)", at: position)
        }
        if isOrdering, kind == .bool || kind == .object || kind == .string || kind == .data {
            throw QueryError("Operator '\(op.rawValue)' is not supported for '\(name)' of type '\(kind.rawValue)'", at: position)
        }
        if !options.isEmpty && !holdsText {
            throw QueryError("[c] and [d] apply to strings, but '\(name)' is \(kind.rawValue)", at: position)
        }
    }

    func comparable(_ a: PropertyKind, _ b: PropertyKind) -> Bool {
        func isNumber(_ kind: PropertyKind) -> Bool {
            switch kind { case .int, .float, .double, .decimal128: true; default: false }
        }
        return a == b || (isNumber(a) && isNumber(b)) || a == .mixed || b == .mixed
    }

    /// `value.@type == 'int'` (also `!=` and `IN {…}`): the value's type name is one of the names
    /// the strings stand for (`'numeric'` is every number type, `'collection'` a list or a
    /// dictionary).
    func bindType(_ comparison: QueryComparison, path: BoundPath, op: QueryOperator, at position: Int) throws -> QueryPlan {
        let written: [QueryValue]
        switch comparison.right {
        case .value(let value): written = [value]
        case .values(let values) where op == .in: written = values
        default: throw QueryError("@type must be compared with a type name string", at: position)
        }
        guard op == .equal || op == .notEqual || op == .in else {
            throw QueryError("@type can only be compared with ==, != or IN", at: position)
        }
        var names: [ColumnValue] = []
        for value in written {
            guard case .string(let text) = value else { throw QueryError("@type must be compared with a type name string", at: position) }
            guard let matching = QueryValueType.names(matching: text) else {
                throw QueryError("Unknown type '\(text)' for @type; the names are \(QueryValueType.aliases.map(\.0).joined(separator: ", "))", at: position)
            }
            names += matching.map { .bytes(Array($0.utf8)) }
        }
        return .compare(BoundComparison(path: path, op: op == .notEqual ? .notEqual : .equal, right: .values(names),
                                        options: .plain, modifier: comparison.modifier ?? .any, isMembership: false,
                                        valuesModifier: op == .notEqual ? .all : .any))
    }
}
