import Foundation

extension Results: Encodable where Element: Encodable {
    /// Encodes the objects, in the results' order, as an array.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for object in self {
            try container.encode(object)
        }
    }
}
