import Foundation

extension Map: Decodable where Key: Decodable, Value: Decodable {
    /// Decodes an unmanaged map from a dictionary (a null value in a map of optionals is kept as
    /// an entry holding nil).
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.singleValueContainer()
        for (key, value) in try container.decode([Key: Value].self) {
            updateValue(value, forKey: key)
        }
    }
}

extension Map: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes the entries as a dictionary.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Dictionary(map { ($0.key, $0.value) }) { $1 })
    }
}
