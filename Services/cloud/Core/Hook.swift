import ParseWire

/// One webhook registration, as parse-server's `_Hooks` holds it: a function name, or a class and trigger.
struct Hook: Sendable, Equatable {
    var functionName: String?
    var className: String?
    var triggerName: String?
    var url: String

    /// parse-server's answer shape: only the members that are set.
    var json: JSONValue {
        var fields: [String: JSONValue] = ["url": .string(url)]
        if let functionName { fields["functionName"] = .string(functionName) }
        if let className { fields["className"] = .string(className) }
        if let triggerName { fields["triggerName"] = .string(triggerName) }
        return .object(fields)
    }
}
