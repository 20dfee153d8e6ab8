/// Input values to what resolvers get (the specification's "Input Coercion", "CoerceVariableValues" and
/// "CoerceArgumentValues"): literals of the document, with its variables, and variables' values as the request
/// sent them. Failures are request errors whose messages read as graphql-js writes them.
struct GraphQLInputCoercion {
    let schema: GraphQLSchema

    /// A value the request sent as JSON (a variable's) as `type`.
    func external(_ value: GraphQLData, as type: GraphQLTypeReference, at location: GraphQLLocation,
                  describing what: String) throws(GraphQLError) -> GraphQLData {
        switch type {
        case .nonNull(let inner):
            guard !value.isNull else { throw GraphQLError("\(what) of non-null type \"\(type)\" must not be null.", locations: [location]) }
            return try external(value, as: inner, at: location, describing: what)
        case .list(let inner):
            if value.isNull { return .null }
            guard case .list(let items) = value else { return .list([try external(value, as: inner, at: location, describing: what)]) }
            var coerced: [GraphQLData] = []
            for item in items { coerced.append(try external(item, as: inner, at: location, describing: what)) }
            return .list(coerced)
        case .named(let name):
            if value.isNull { return .null }
            guard let named = schema[name] else { throw GraphQLError("Unknown type \"\(name)\".", locations: [location]) }
            switch named.kind {
            case .scalar:
                guard let parsed = named.parse?(value) else {
                    throw GraphQLError("\(what) got invalid value \(value.jsonText); \(name) cannot represent it.", locations: [location])
                }
                return parsed
            case .enumeration:
                guard case .string(let text) = value, named.enumValues.contains(where: { $0.name == text }) else {
                    throw GraphQLError("\(what) got invalid value \(value.jsonText); Value does not exist in \"\(name)\" enum.",
                                       locations: [location])
                }
                return value
            case .inputObject:
                guard case .object(let members) = value else {
                    throw GraphQLError("\(what) got invalid value \(value.jsonText); Expected type \"\(name)\" to be an object.",
                                       locations: [location])
                }
                for member in members where !named.inputFields.contains(where: { $0.name == member.key }) {
                    throw GraphQLError("\(what) got invalid value \(value.jsonText); Field \"\(member.key)\" is not defined by type \"\(name)\".",
                                       locations: [location])
                }
                var coerced: [GraphQLObjectMember] = []
                for field in named.inputFields {
                    if let given = value[field.name] {
                        coerced.append(GraphQLObjectMember(field.name, try external(given, as: field.type, at: location,
                                                                                     describing: what)))
                    } else if let defaultValue = field.defaultValue {
                        coerced.append(GraphQLObjectMember(field.name, defaultValue))
                    } else if case .nonNull = field.type {
                        throw GraphQLError("\(what) got invalid value \(value.jsonText); Field \"\(field.name)\" of required type \"\(field.type)\" was not provided.",
                                           locations: [location])
                    }
                }
                return .object(coerced)
            case .object, .interface, .union:
                throw GraphQLError("\(what) expected value of type \"\(type)\" which cannot be used as an input type.",
                                   locations: [location])
            }
        }
    }

    /// A literal of the document as `type`; a variable inside it takes its coerced value, and one the request did
    /// not give makes the enclosing input field absent (nil). `variables` nil: the document is being validated, before
    /// any value is known; a variable then stands for a value of its own type (checked when the request gives it).
    func literal(_ value: GraphQLValue, as type: GraphQLTypeReference, variables: [String: GraphQLData]?,
                 at location: GraphQLLocation) throws(GraphQLError) -> GraphQLData? {
        if case .variable(let name) = value {
            guard let variables else { return .boolean(true) }
            return variables[name]
        }
        switch type {
        case .nonNull(let inner):
            if value == .null { throw GraphQLError("Expected value of type \"\(type)\", found null.", locations: [location]) }
            guard let coerced = try literal(value, as: inner, variables: variables, at: location) else { return nil }
            if coerced.isNull { throw GraphQLError("Expected value of type \"\(type)\", found null.", locations: [location]) }
            return coerced
        case .list(let inner):
            if value == .null { return .null }
            guard case .list(let items) = value else {
                return try literal(value, as: inner, variables: variables, at: location).map { .list([$0]) }
            }
            var coerced: [GraphQLData] = []
            for item in items { coerced.append(try literal(item, as: inner, variables: variables, at: location) ?? .null) }
            return .list(coerced)
        case .named(let name):
            if value == .null { return .null }
            guard let named = schema[name] else { throw GraphQLError("Unknown type \"\(name)\".", locations: [location]) }
            switch named.kind {
            case .scalar:
                let data = try plain(value, variables: variables, at: location)
                // An enum literal is text only to a scalar of the server's own (as graphql-js reads it untyped).
                let isSpecified = GraphQLSchema.specifiedScalars.contains { $0.name == name }
                guard !(isSpecified && { if case .enumValue = value { true } else { false } }()),
                      let parsed = named.parse?(data) else {
                    throw GraphQLError("\(Self.refusal[name] ?? "\(name) cannot represent value"): \(Self.printed(value))",
                                       locations: [location])
                }
                return parsed
            case .enumeration:
                if case .string = value {
                    throw GraphQLError("Enum \"\(name)\" cannot represent non-enum value: \(Self.printed(value)).", locations: [location])
                }
                guard case .enumValue(let text) = value, named.enumValues.contains(where: { $0.name == text }) else {
                    throw GraphQLError("Value \(Self.printed(value)) does not exist in \"\(name)\" enum.", locations: [location])
                }
                return .string(text)
            case .inputObject:
                guard case .object(let fields) = value else {
                    throw GraphQLError("Expected value of type \"\(name)\", found \(Self.printed(value)).", locations: [location])
                }
                for field in fields where !named.inputFields.contains(where: { $0.name == field.name }) {
                    throw GraphQLError("Field \"\(field.name)\" is not defined by type \"\(name)\".", locations: [location])
                }
                var coerced: [GraphQLObjectMember] = []
                for definition in named.inputFields {
                    let given = fields.first { $0.name == definition.name }
                    if let given, let value = try literal(given.value, as: definition.type, variables: variables, at: location) {
                        coerced.append(GraphQLObjectMember(definition.name, value))
                    } else if let defaultValue = definition.defaultValue {
                        coerced.append(GraphQLObjectMember(definition.name, defaultValue))
                    } else if case .nonNull = definition.type {
                        throw GraphQLError("Field \"\(name).\(definition.name)\" of required type \"\(definition.type)\" was not provided.",
                                           locations: [location])
                    }
                }
                return .object(coerced)
            case .object, .interface, .union:
                throw GraphQLError("Type \"\(name)\" is not an input type.", locations: [location])
            }
        }
    }

    /// A literal as plain data, for a scalar's `parse`: numbers as written, lists and objects member by member.
    private func plain(_ value: GraphQLValue, variables: [String: GraphQLData]?,
                       at location: GraphQLLocation) throws(GraphQLError) -> GraphQLData {
        switch value {
        case .variable(let name): return variables?[name] ?? .null
        case .int(let text):
            guard let number = Int(text) else { return .float(Double(text) ?? .infinity) }
            return .int(number)
        case .float(let text): return .float(Double(text) ?? .infinity)
        case .string(let text), .enumValue(let text): return .string(text)
        case .boolean(let flag): return .boolean(flag)
        case .null: return .null
        case .list(let items):
            var values: [GraphQLData] = []
            for item in items { values.append(try plain(item, variables: variables, at: location)) }
            return .list(values)
        case .object(let fields):
            var members: [GraphQLObjectMember] = []
            for field in fields { members.append(GraphQLObjectMember(field.name, try plain(field.value, variables: variables, at: location))) }
            return .object(members)
        }
    }

    /// graphql-js's words for a literal the specified scalars refuse.
    private static let refusal = [
        "Int": "Int cannot represent non-integer value", "Float": "Float cannot represent non numeric value",
        "String": "String cannot represent a non string value", "Boolean": "Boolean cannot represent a non boolean value",
        "ID": "ID cannot represent a non-string and non-integer value",
    ]

    /// A literal as the document wrote it, for messages.
    static func printed(_ value: GraphQLValue) -> String {
        switch value {
        case .variable(let name): "$" + name
        case .int(let text), .float(let text), .enumValue(let text): text
        case .string(let text): GraphQLData.string(text).jsonText
        case .boolean(let flag): flag ? "true" : "false"
        case .null: "null"
        case .list(let items): "[" + items.map(printed).joined(separator: ", ") + "]"
        case .object(let fields): "{" + fields.map { "\($0.name): \(printed($0.value))" }.joined(separator: ", ") + "}"
        }
    }
}
