import ParseWire

/// parse-server's GraphQL configuration (`PUT /graphql-config`, kept by posts): which classes the GraphQL schema
/// has (`enabledForClasses`, `disabledForClasses`) and, per class (`classConfigs`), which fields it takes and gives,
/// what it is filtered and sorted by, and which queries and mutations it has, under which names. Validated with
/// parse-server's messages.
public struct ParseGraphQLConfig: Sendable, Equatable {
    public var enabledForClasses: [String]?
    public var disabledForClasses: [String]?
    public var classConfigs: [String: ClassConfig] = [:]

    public struct ClassConfig: Sendable, Equatable {
        public var createFields: [String]?
        public var updateFields: [String]?
        public var outputFields: [String]?
        public var constraintFields: [String]?
        public var sortFields: [(field: String, asc: Bool, desc: Bool)]?
        public var get = true, find = true
        public var getAlias: String?, findAlias: String?
        public var create = true, update = true, destroy = true
        public var createAlias: String?, updateAlias: String?, destroyAlias: String?

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.createFields == rhs.createFields && lhs.updateFields == rhs.updateFields && lhs.outputFields == rhs.outputFields
                && lhs.constraintFields == rhs.constraintFields
                && lhs.sortFields?.map { "\($0.field)\($0.asc)\($0.desc)" } == rhs.sortFields?.map { "\($0.field)\($0.asc)\($0.desc)" }
                && lhs.get == rhs.get && lhs.find == rhs.find && lhs.getAlias == rhs.getAlias && lhs.findAlias == rhs.findAlias
                && lhs.create == rhs.create && lhs.update == rhs.update && lhs.destroy == rhs.destroy
                && lhs.createAlias == rhs.createAlias && lhs.updateAlias == rhs.updateAlias && lhs.destroyAlias == rhs.destroyAlias
        }
    }

    public static let none = ParseGraphQLConfig()

    public init() {}

    /// A stored configuration, already validated when it was written; what does not read as one is left out.
    public init(stored: JSONValue) {
        enabledForClasses = Self.strings(stored["enabledForClasses"])
        disabledForClasses = Self.strings(stored["disabledForClasses"])
        for entry in stored["classConfigs"]?.arrayValue ?? [] {
            guard let className = entry["className"]?.stringValue else { continue }
            var config = ClassConfig()
            let type = entry["type"]
            config.createFields = Self.strings(type?["inputFields"]?["create"])
            config.updateFields = Self.strings(type?["inputFields"]?["update"])
            config.outputFields = Self.strings(type?["outputFields"])
            config.constraintFields = Self.strings(type?["constraintFields"])
            config.sortFields = type?["sortFields"]?.arrayValue.map { sorts in
                sorts.compactMap { sort in
                    sort["field"]?.stringValue.map { ($0, sort["asc"]?.boolValue ?? false, sort["desc"]?.boolValue ?? false) }
                }
            }
            let query = entry["query"], mutation = entry["mutation"]
            config.get = query?["get"]?.boolValue ?? true
            config.find = query?["find"]?.boolValue ?? true
            config.getAlias = query?["getAlias"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            config.findAlias = query?["findAlias"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            config.create = mutation?["create"]?.boolValue ?? true
            config.update = mutation?["update"]?.boolValue ?? true
            config.destroy = mutation?["destroy"]?.boolValue ?? true
            config.createAlias = mutation?["createAlias"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            config.updateAlias = mutation?["updateAlias"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            config.destroyAlias = mutation?["destroyAlias"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
            classConfigs[className] = config
        }
    }

    /// The classes the schema has, of `all` (parse-server's `_getClassesForSchema`).
    func includes(_ className: String) -> Bool {
        if let enabled = enabledForClasses, !enabled.contains(className) { return false }
        if let disabled = disabledForClasses, disabled.contains(className) { return false }
        return true
    }

    private static func strings(_ value: JSONValue?) -> [String]? {
        value?.arrayValue.map { $0.compactMap(\.stringValue) }
    }

    /// parse-server's `_validateGraphQLConfig`: the problems of a configuration a client sends, nil when it has none.
    public static func problems(of config: JSONValue?) -> String? {
        var messages: [String] = []
        guard let config, case .object(let fields) = config else {
            return "Invalid graphQLConfig: " + (config == nil || config == .null ? "cannot be undefined, null or empty" : "must be a valid object")
        }
        let invalid = fields.keys.filter { !["enabledForClasses", "disabledForClasses", "classConfigs"].contains($0) }.sorted()
        if !invalid.isEmpty { messages.append("encountered invalid keys: [\(invalid.joined(separator: ","))]") }
        if let enabled = fields["enabledForClasses"], enabled != .null, !isStringArray(enabled) {
            messages.append("\"enabledForClasses\" is not a valid array")
        }
        if let disabled = fields["disabledForClasses"], disabled != .null, !isStringArray(disabled) {
            messages.append("\"disabledForClasses\" is not a valid array")
        }
        if let classConfigs = fields["classConfigs"], classConfigs != .null {
            if let entries = classConfigs.arrayValue {
                for entry in entries {
                    if let problem = classProblem(entry) {
                        messages.append("classConfig:\(entry["className"]?.stringValue ?? "undefined") is invalid because \(problem)")
                    }
                }
            } else {
                messages.append("\"classConfigs\" is not a valid array")
            }
        }
        return messages.isEmpty ? nil : "Invalid graphQLConfig: " + messages.joined(separator: "; ")
    }

    private static func classProblem(_ entry: JSONValue) -> String? {
        guard case .object(let fields) = entry else { return "it must be a valid object" }
        let invalid = fields.keys.filter { !["className", "type", "query", "mutation"].contains($0) }.sorted()
        if !invalid.isEmpty { return "\"invalidKeys\" [\(invalid.joined(separator: ","))] should not be present" }
        guard let className = fields["className"]?.stringValue, !className.trimmingWhitespace.isEmpty else {
            return "\"className\" must be a valid string"
        }
        if let type = fields["type"], type != .null {
            guard case .object(let typeFields) = type else { return "\"type\" must be a valid object" }
            let invalid = typeFields.keys.filter { !["inputFields", "outputFields", "constraintFields", "sortFields"].contains($0) }.sorted()
            if !invalid.isEmpty { return "\"type\" contains invalid keys, [\(invalid.joined(separator: ","))]" }
            if let output = typeFields["outputFields"], output != .null, !isStringArray(output) { return "\"outputFields\" must be a valid string array" }
            if let constraints = typeFields["constraintFields"], constraints != .null, !isStringArray(constraints) {
                return "\"constraintFields\" must be a valid string array"
            }
            if let sorts = typeFields["sortFields"], sorts != .null {
                guard let items = sorts.arrayValue else { return "\"sortFields\" must be a valid array." }
                for (index, item) in items.enumerated() {
                    guard case .object(let sort) = item else { return "\"sortField\" at index \(index) is not a valid object" }
                    let invalid = sort.keys.filter { !["field", "asc", "desc"].contains($0) }.sorted()
                    if !invalid.isEmpty { return "\"sortField\" at index \(index) contains invalid keys, [\(invalid.joined(separator: ","))]" }
                    guard let field = sort["field"]?.stringValue, !field.trimmingWhitespace.isEmpty else {
                        return "\"sortField\" at index \(index) did not provide the \"field\" as a string"
                    }
                    guard sort["asc"]?.boolValue != nil, sort["desc"]?.boolValue != nil else {
                        return "\"sortField\" at index \(index) did not provide \"asc\" or \"desc\" as booleans"
                    }
                }
            }
            if let input = typeFields["inputFields"], input != .null {
                guard case .object(let inputFields) = input else { return "\"inputFields\" must be a valid object" }
                let invalid = inputFields.keys.filter { !["create", "update"].contains($0) }.sorted()
                if !invalid.isEmpty { return "\"inputFields\" contains invalid keys: [\(invalid.joined(separator: ","))]" }
                if let update = inputFields["update"], update != .null, !isStringArray(update) { return "\"inputFields.update\" must be a valid string array" }
                if let create = inputFields["create"], create != .null {
                    guard isStringArray(create) else { return "\"inputFields.create\" must be a valid string array" }
                    let names = create.arrayValue?.compactMap(\.stringValue) ?? []
                    if className == "_User", !names.contains("username") || !names.contains("password") {
                        return "\"inputFields.create\" must include required fields, username and password"
                    }
                }
            }
        }
        if let query = fields["query"], query != .null {
            guard case .object(let options) = query else { return "\"query\" must be a valid object" }
            let invalid = options.keys.filter { !["find", "get", "findAlias", "getAlias"].contains($0) }.sorted()
            if !invalid.isEmpty { return "\"query\" contains invalid keys, [\(invalid.joined(separator: ","))]" }
            for name in ["find", "get"] where options[name].map({ $0 != .null && $0.boolValue == nil }) == true { return "\"query.\(name)\" must be a boolean" }
            for name in ["findAlias", "getAlias"] where options[name].map({ $0 != .null && $0.stringValue == nil }) == true { return "\"query.\(name)\" must be a string" }
        }
        if let mutation = fields["mutation"], mutation != .null {
            guard case .object(let options) = mutation else { return "\"mutation\" must be a valid object" }
            let invalid = options.keys.filter { !["create", "update", "destroy", "createAlias", "updateAlias", "destroyAlias"].contains($0) }.sorted()
            if !invalid.isEmpty { return "\"mutation\" contains invalid keys, [\(invalid.joined(separator: ","))]" }
            for name in ["create", "update", "destroy"] where options[name].map({ $0 != .null && $0.boolValue == nil }) == true {
                return "\"mutation.\(name)\" must be a boolean"
            }
            for name in ["createAlias", "updateAlias", "destroyAlias"] where options[name].map({ $0 != .null && $0.stringValue == nil }) == true {
                return "\"mutation.\(name)\" must be a string"
            }
        }
        return nil
    }

    private static func isStringArray(_ value: JSONValue) -> Bool {
        guard let items = value.arrayValue else { return false }
        return items.allSatisfy { ($0.stringValue?.trimmingWhitespace.isEmpty == false) }
    }
}

private extension String {
    var trimmingWhitespace: Substring {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return text
    }
}
