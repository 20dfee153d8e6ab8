import ParseWire

// Function calls cross the gateway, cloud and a worker, so their messages skip Foundation's coders like the REST
// path's (see `JSONValueRepresentable`); the JSON is the synthesized `Codable` form.

extension JSONValue: JSONValueRepresentable {
    public var jsonValue: JSONValue { self }
    public init?(jsonValue: JSONValue) { self = jsonValue }
}

extension RunCloudFunction: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        .object(["name": .string(name), "params": params, "headers": .strings(headers), "ip": .string(ip)])
    }

    public init?(jsonValue: JSONValue) {
        guard let name = jsonValue["name"]?.stringValue, let params = jsonValue["params"],
              let headers = jsonValue["headers"]?.stringDictionary, let ip = jsonValue["ip"]?.stringValue else { return nil }
        self.init(name: name, params: params, headers: headers, ip: ip)
    }
}

extension CloudFunctionResult: JSONValueRepresentable {
    public var jsonValue: JSONValue { .object(["result": result]) }

    public init?(jsonValue: JSONValue) {
        guard let result = jsonValue["result"] else { return nil }
        self.init(result: result)
    }
}

extension CloudWorkerCall: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["kind": .string(kind.rawValue), "name": .string(name), "request": request]
        if let className { fields["className"] = .string(className) }
        return .object(fields)
    }

    public init?(jsonValue: JSONValue) {
        guard let kind = jsonValue["kind"]?.stringValue.flatMap(Kind.init(rawValue:)), let name = jsonValue["name"]?.stringValue,
              let request = jsonValue["request"], case .some(let className) = jsonValue.optionalString("className") else {
            return nil
        }
        self.init(kind: kind, name: name, className: className, request: request)
    }
}

extension TriggerKey: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        .object(["className": .string(className), "triggerName": .string(triggerName.rawValue)])
    }

    public init?(jsonValue: JSONValue) {
        guard let className = jsonValue["className"]?.stringValue,
              let triggerName = jsonValue["triggerName"]?.stringValue.flatMap(TriggerName.init(rawValue:)) else { return nil }
        self.init(className: className, triggerName: triggerName)
    }
}

extension RunTrigger: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = ["key": key.jsonValue, "headers": .strings(headers), "ip": .string(ip)]
        if let object { fields["object"] = object }
        if let original { fields["original"] = original }
        if let query { fields["query"] = query }
        if let objects { fields["objects"] = .array(objects) }
        if let context { fields["context"] = context }
        if let eventId { fields["eventId"] = .string(eventId) }
        return .object(fields)
    }

    public init?(jsonValue: JSONValue) {
        guard let key = jsonValue["key"].flatMap(TriggerKey.init(jsonValue:)),
              case .some(let eventId) = jsonValue.optionalString("eventId"),
              let headers = jsonValue["headers"]?.stringDictionary, let ip = jsonValue["ip"]?.stringValue else { return nil }
        var objects: [JSONValue]?
        switch jsonValue["objects"] {
        case nil, .null?: objects = nil
        case .array(let items)?: objects = items
        default: return nil
        }
        self.init(key: key, object: jsonValue.present("object"), original: jsonValue.present("original"),
                  query: jsonValue.present("query"), objects: objects, context: jsonValue.present("context"),
                  headers: headers, ip: ip, eventId: eventId)
    }
}

extension TriggerResult: JSONValueRepresentable {
    public var jsonValue: JSONValue {
        var fields: [String: JSONValue] = [:]
        if let object { fields["object"] = object }
        if let query { fields["query"] = query }
        if let objects { fields["objects"] = .array(objects) }
        return .object(fields)
    }

    public init?(jsonValue: JSONValue) {
        guard jsonValue.objectValue != nil else { return nil }
        var objects: [JSONValue]?
        switch jsonValue["objects"] {
        case nil, .null?: objects = nil
        case .array(let items)?: objects = items
        default: return nil
        }
        self.init(object: jsonValue.present("object"), query: jsonValue.present("query"), objects: objects)
    }
}

extension JSONValue {
    /// An optional member as Foundation decodes an optional `JSONValue`: absent or null is nil.
    func present(_ key: String) -> JSONValue? {
        switch self[key] {
        case nil, .null?: nil
        case let value?: value
        }
    }
}
