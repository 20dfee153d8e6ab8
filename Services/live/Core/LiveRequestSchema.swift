import ParseWire

/// Checks a client message against parse-server's `RequestSchema` and words a refusal as its validator (tv4) does,
/// so an SDK sees the same `error` text.
enum LiveRequestSchema {
    enum Kind { case string, number, object, array }

    static let operations = ["connect", "subscribe", "unsubscribe", "update"]
    static let connect: [String: Kind] = [
        "op": .string, "applicationId": .string, "javascriptKey": .string, "masterKey": .string, "clientKey": .string,
        "windowsKey": .string, "restAPIKey": .string, "sessionToken": .string, "installationId": .string,
    ]
    static let subscribe: [String: Kind] = ["op": .string, "requestId": .number, "query": .object, "sessionToken": .string]
    static let unsubscribe: [String: Kind] = ["op": .string, "requestId": .number]
    static let query: [String: Kind] = [
        "className": .string, "where": .object, "keys": .array, "fields": .array, "watch": .array, "include": .array,
    ]

    enum Verdict: Equatable { case success(String), failure(String) }

    /// The message's operation, or the validator's message for what is wrong with it.
    static func validate(_ message: JSONValue) -> Verdict {
        guard let fields = message.objectValue else { return .failure("Invalid type: \(typeName(message)) (expected object)") }
        guard let opValue = fields["op"] else { return .failure("Missing required property: op") }
        guard let op = opValue.stringValue else { return .failure("Invalid type: \(typeName(opValue)) (expected string)") }
        guard operations.contains(op) else { return .failure("No enum match for: \(opValue.compactText)") }
        switch op {
        case "connect":
            if let failure = check(fields, connect, required: ["op", "applicationId"]) { return .failure(failure) }
        case "unsubscribe":
            if let failure = check(fields, unsubscribe, required: ["op", "requestId"]) { return .failure(failure) }
        default:
            if let failure = check(fields, subscribe, required: ["op", "requestId", "query"]) { return .failure(failure) }
            if let failure = check(fields["query"]?.objectValue ?? [:], query, required: ["where", "className"]) {
                return .failure(failure)
            }
            for name in ["keys", "fields", "watch", "include"] {
                guard let items = fields["query"]?[name]?.arrayValue else { continue }
                if items.isEmpty { return .failure("Array is too short (0), minimum 1") }
                for item in items where item.stringValue == nil {
                    return .failure("Invalid type: \(typeName(item)) (expected string)")
                }
                // By a table of first places, not a search of the items before each: a 1 MB message holds 100,000
                // keys, and comparing each with all before it held live's one thread for minutes.
                var firstPlaces: [JSONValue: Int] = [:]
                for (index, item) in items.enumerated() {
                    if let first = firstPlaces[item] {
                        return .failure("Array items are not unique (indices \(first) and \(index))")
                    }
                    firstPlaces[item] = index
                }
            }
        }
        return .success(op)
    }

    private static func check(_ fields: [String: JSONValue], _ schema: [String: Kind], required: [String]) -> String? {
        for name in required where fields[name] == nil { return "Missing required property: \(name)" }
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            guard let kind = schema[name] else { continue }
            if !matches(value, kind) { return "Invalid type: \(typeName(value)) (expected \(kind))" }
        }
        if fields.keys.contains(where: { schema[$0] == nil }) { return "Additional properties not allowed" }
        return nil
    }

    private static func matches(_ value: JSONValue, _ kind: Kind) -> Bool {
        switch kind {
        case .string: value.stringValue != nil
        case .number: value.numberValue != nil
        case .object: value.objectValue != nil
        case .array: value.arrayValue != nil
        }
    }

    static func typeName(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
