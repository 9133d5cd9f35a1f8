import Foundation
import RealmActors
import RealmObjectStore

/// `values`: the decoders of stored and exchanged values. The input's first byte picks one, the
/// rest is what it decodes:
///
/// - 0: a stored `AnyRealmValue` (a mixed property's bytes, nested lists and dictionaries
///   included), decoded as a property that held it reads and walked whole;
/// - 1: the schema record's JSON, decoded and checked (`StoredSchema.decode`) and turned into
///   the tables a file opens with (`SchemaCatalog`), as opening a file does;
/// - 2: a model object from JSON (`JSONDecoder` on a `Codable` `Object`: lists, sets, maps,
///   `Decimal128`, `ObjectId`, `UUID`, dates, data, embedded objects), added to a realm;
/// - 3: the text forms of `Decimal128` and `ObjectId`.
///
/// What must hold: each decodes or refuses (a thrown error, a `.none`), never a trap.
final class ValueDecodingTarget: FuzzTarget {
    private let realm: Realm

    init() {
        realm = FuzzModels.populatedRealm(named: "values")
    }

    enum Decoder: UInt8, CaseIterable {
        case storedMixed, storedSchema, objectJSON, text
    }

    func run(_ input: Data) -> String {
        guard let first = input.first else { return "empty" }
        let body = input.dropFirst()
        switch Decoder(rawValue: first % UInt8(Decoder.allCases.count))! {
        case .storedMixed:
            return "mixed value of \(Self.walk(realm.anyRealmValue(storedBytes: [UInt8](body)))) elements"
        case .storedSchema:
            guard let stored = try? StoredSchema.decode(body) else { return "schema refused" }
            return "schema of \(SchemaCatalog(stored).tables.count) tables"
        case .objectJSON:
            guard let item = try? JSONDecoder().decode(FuzzItem.self, from: Data(body)) else { return "object refused" }
            do {
                try realm.write { realm.add(item, update: .modified) }
                return "object added with \(item.parts.count) parts"
            } catch {
                return "object not added: \(error)"
            }
        case .text:
            let text = String(decoding: body, as: UTF8.self)
            return "decimal \((try? Decimal128(string: text))?.description ?? "refused"), object id \((try? ObjectId(string: text))?.description ?? "refused")"
        }
    }

    /// Reads every element of a (possibly nested) value; returns how many there were.
    static func walk(_ value: AnyRealmValue) -> Int {
        switch value {
        case .list(let list): list.reduce(1) { $0 + walk($1) }
        case .dictionary(let map): map.reduce(1) { $0 + walk($1.value) }
        case .object(let object): object.isInvalidated ? 0 : 1
        default: 1
        }
    }
}
