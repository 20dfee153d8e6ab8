import Contracts
import Foundation
import ParseWire

/// The one JSON configuration for messages between services, so every sender and receiver agrees. Messages
/// that are `JSONValueRepresentable` (the command envelope with REST payloads) skip Foundation's coders; the
/// JSON is the same either way.
enum JSONCoding {
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        if let known = value as? any JSONValueRepresentable { return JSONText.bytes(known.jsonValue) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        if let known = type as? any JSONValueRepresentable.Type, let json = JSONValue.parse(bytes),
           let value = known.init(jsonValue: json) as? T {
            return value
        }
        return try JSONDecoder().decode(type, from: Data(bytes))
    }
}
