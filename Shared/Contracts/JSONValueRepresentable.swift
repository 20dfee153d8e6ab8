import ParseWire

/// A message whose JSON form is built and read by hand through `JSONValue` (`JSONParser`, `JSONText`): the command
/// envelope and the REST payloads cross every request, and Foundation's coders were about a sixth of the
/// gateway's CPU. The form is exactly the one the synthesized `Codable` conformance gives (same keys, absent
/// optionals left out), so a sender and a receiver may use either coder. `init?(jsonValue:)` answers nil for
/// anything it does not expect; the caller then decodes with Foundation, which reports the precise error.
public protocol JSONValueRepresentable {
    var jsonValue: JSONValue { get }
    init?(jsonValue: JSONValue)
}

extension JSONValue {
    /// A member that may be absent or null: `.some(nil)` then, nil when it is there with another type.
    func optionalString(_ key: String) -> String?? {
        switch self[key] {
        case nil, .null?: return .some(nil)
        case .string(let text)?: return .some(text)
        default: return nil
        }
    }

    /// The same for a number.
    func optionalNumber(_ key: String) -> Double?? {
        switch self[key] {
        case nil, .null?: return .some(nil)
        case .number(let number)?: return .some(number)
        default: return nil
        }
    }

    /// The member `key` as an array of `T`; nil when it is missing or any item is not a `T`.
    func items<T: JSONValueRepresentable>(_ key: String, as type: T.Type) -> [T]? {
        guard let values = self[key]?.arrayValue else { return nil }
        var items: [T] = []
        items.reserveCapacity(values.count)
        for value in values {
            guard let item = T(jsonValue: value) else { return nil }
            items.append(item)
        }
        return items
    }

    /// An object whose values are all strings.
    var stringDictionary: [String: String]? {
        guard let fields = objectValue else { return nil }
        var strings: [String: String] = [:]
        strings.reserveCapacity(fields.count)
        for (key, value) in fields {
            guard let text = value.stringValue else { return nil }
            strings[key] = text
        }
        return strings
    }

    static func strings(_ dictionary: [String: String]) -> JSONValue {
        .object(dictionary.mapValues { .string($0) })
    }
}

extension ParseError: JSONValueRepresentable {
    public var jsonValue: JSONValue { .object(["code": .number(Double(code.rawValue)), "error": .string(message)]) }

    public init?(jsonValue: JSONValue) {
        guard let code = jsonValue["code"]?.numberValue.flatMap({ Int(exactly: $0) }),
              let message = jsonValue["error"]?.stringValue else { return nil }
        self.init(Code(rawValue: code), message)
    }
}
