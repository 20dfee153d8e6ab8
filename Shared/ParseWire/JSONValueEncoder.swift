import Foundation

/// `Encodable` values to the compact JSON bytes messages carry: the one JSON coder of the messages between
/// services. The text is the one `JSONText` writes for the same value (keys sorted, so equal values give equal
/// bytes; whole numbers without a fraction), in the form Foundation's `JSONEncoder` gives it (absent optionals
/// left out), except that a `Date` is Parse's date text (`2026-11-30T14:02:51.492Z`, `ParseDate`) and whole numbers
/// beyond 2^53, which a `JSONValue` number cannot hold exactly, are refused instead of rounded.
public struct JSONValueEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let output = JSONOutput()
        try ValueEncoding(output: output, path: .root).encodeRoot(value)
        return output.bytes
    }

    public func encodeValue<T: Encodable>(_ value: T) throws -> JSONValue {
        guard let json = JSONValue.parse(try encode(value)) else { preconditionFailure("the encoder wrote invalid JSON") }
        return json
    }
}
