import Foundation

extension MutableSet: Decodable where Element: Decodable {
    /// Decodes an unmanaged set from an array of elements (repeated elements are kept once).
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            insert(try container.decode(Element.self))
        }
    }
}

extension MutableSet: Encodable where Element: Encodable {
    /// Encodes the elements as an array, in the set's order.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self {
            try container.encode(element)
        }
    }
}
