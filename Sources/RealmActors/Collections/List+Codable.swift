import Foundation

extension List: Decodable where Element: Decodable {
    /// Decodes an unmanaged list from an array of elements.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            append(try container.decode(Element.self))
        }
    }
}

extension List: Encodable where Element: Encodable {
    /// Encodes the elements, in order, as an array (a managed list at the realm's current version).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self {
            try container.encode(element)
        }
    }
}
