import Foundation
import ParseWire
import Storage

/// Parse values as the SQL that stores (or compares with) them in a column of a given type.
public enum ValueStorage {
    /// The SQL expression that stores `value` in a column of `type` (a bound parameter, cast as needed).
    public static func sql(_ value: JSONValue, _ type: FieldType, _ parameters: inout SQLParameters) throws(ParseError) -> String {
        if value.isNull { return "NULL" }
        switch type.kind {
        case .string:
            guard let text = value.stringValue else { throw mismatch(type, value) }
            return parameters.bind(text)
        case .number:
            guard let number = value.numberValue, number.isFinite else { throw mismatch(type, value) }
            return parameters.bind(number) + "::double precision"
        case .boolean:
            guard let flag = value.boolValue else { throw mismatch(type, value) }
            return parameters.bind(flag) + "::boolean"
        case .date:
            return parameters.bind(try date(value)) + "::timestamptz"
        case .object, .array:
            try checkNestedKeys(value)
            return parameters.bind(value.compactText) + "::jsonb"
        case .bytes:
            guard value["base64"]?.stringValue != nil else { throw ParseError(.incorrectType, "This is not a valid Bytes") }
            return parameters.bind(JSONValue.object(["__type": .string("Bytes"), "base64": value["base64"]!]).compactText) + "::jsonb"
        case .pointer:
            guard let id = value["objectId"]?.stringValue else { throw ParseError(.invalidPointer, "This is not a valid Pointer") }
            return parameters.bind(id)
        case .file:
            guard let name = value["name"]?.stringValue else { throw ParseError(.incorrectType, "This is not a valid File") }
            return parameters.bind(name)
        case .geoPoint:
            guard let latitude = value["latitude"]?.numberValue, let longitude = value["longitude"]?.numberValue else {
                throw ParseError(.incorrectType, "This is not a valid GeoPoint")
            }
            guard (-90...90).contains(latitude) else {
                throw ParseError(.incorrectType, "GeoPoint latitude out of bounds: \(latitude).")
            }
            guard (-180...180).contains(longitude) else {
                throw ParseError(.incorrectType, "GeoPoint longitude out of bounds: \(longitude).")
            }
            return "point(\(parameters.bind(longitude))::double precision, \(parameters.bind(latitude))::double precision)"
        case .polygon:
            guard value["__type"]?.stringValue == "Polygon" else { throw mismatch(type, value) }
            return parameters.bind(try GeoValue.polygonText(value)) + "::polygon"
        case .relation, .acl:
            throw mismatch(type, value)
        }
    }

    public static func date(_ value: JSONValue) throws(ParseError) -> Date {
        let iso = value["iso"]?.stringValue ?? value.stringValue
        guard let iso, let date = ParseDate.date(from: iso) else { throw ParseError(.incorrectType, "This is not a valid Date") }
        return date
    }

    private static func mismatch(_ type: FieldType, _ value: JSONValue) -> ParseError {
        let got = (try? FieldType.of(value))??.description ?? "invalid value"
        return ParseError(.incorrectType, "schema mismatch; expected \(type.description) but got \(got)")
    }

    /// Levels of arrays and objects a stored value may have. The events and replies that carry an object wrap it
    /// in four more, and JSON coders stop at 512.
    public static let maximumDepth = 508

    /// parse-server refuses `$` and `.` in the keys of stored objects: they would read as operators and paths.
    /// Values nested deeper than `maximumDepth` are refused too.
    public static func checkNestedKeys(_ value: JSONValue, depth: Int = 1) throws(ParseError) {
        switch value {
        case .object(let fields):
            try checkDepth(depth)
            for (key, nested) in fields {
                if key.contains("$") || key.contains(".") {
                    throw ParseError(.invalidNestedKey, "Nested keys should not contain the '$' or '.' characters")
                }
                try checkNestedKeys(nested, depth: depth + 1)
            }
        case .array(let items):
            try checkDepth(depth)
            for item in items { try checkNestedKeys(item, depth: depth + 1) }
        default: break
        }
    }

    private static func checkDepth(_ depth: Int) throws(ParseError) {
        guard depth <= maximumDepth else {
            throw ParseError(.invalidJSON, "Invalid JSON: values may be nested at most \(maximumDepth) levels deep.")
        }
    }
}
