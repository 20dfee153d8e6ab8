import Contracts
import ParseWire

/// The one JSON coder of the messages between services, so every sender and receiver agrees: `JSONValueEncoder`
/// and `JSONValueDecoder`, which write compact text with sorted keys and read what Foundation's coders read.
enum JSONCoding {
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try JSONValueEncoder().encode(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try JSONValueDecoder().decode(type, from: bytes)
    }
}
