/// Parses an executable GraphQL document (the specification's "Document" with its `ExecutableDefinition`s) into a
/// `GraphQLDocument`. Recursive descent over `GraphQLLexer`'s tokens; how deep selections, values and types may
/// nest is bounded (`maximumDepth`), so no document can exhaust the stack, and so is the number of tokens.
public struct GraphQLParser {
    /// Selection sets, lists, input objects and type wrappers inside one another, at most.
    public static let maximumDepth = 128
    /// Tokens in one document, at most (graphql-js's `maxTokens`).
    public static let maximumTokens = 100_000

    private var lexer: GraphQLLexer
    private var token: GraphQLToken
    private var depth = 0
    private var tokens = 1

    /// Parses `source` as a whole document; the first error found is thrown.
    public static func parse(_ source: String) throws(GraphQLSyntaxError) -> GraphQLDocument {
        var parser = try GraphQLParser(source)
        return try parser.document()
    }

    /// Parses `source` as one value (`{a: [1, $b]}`), as variables' defaults and tests write them.
    public static func parseValue(_ source: String) throws(GraphQLSyntaxError) -> GraphQLValue {
        var parser = try GraphQLParser(source)
        let value = try parser.value(constant: false)
        try parser.expect(.endOfFile)
        return value
    }

    private init(_ source: String) throws(GraphQLSyntaxError) {
        lexer = GraphQLLexer(source)
        token = try lexer.next()
    }

    // MARK: - Tokens

    private mutating func advance() throws(GraphQLSyntaxError) {
        tokens += 1
        guard tokens <= Self.maximumTokens else {
            throw GraphQLSyntaxError("Document contains more than \(Self.maximumTokens) tokens. Parsing aborted.",
                                     at: token.location)
        }
        token = try lexer.next()
    }

    private func peek(_ kind: GraphQLToken.Kind) -> Bool { token.kind == kind }

    private func peekName(_ name: String) -> Bool { token.kind == .name && token.value == name }

    /// Takes the token when it is of `kind`.
    private mutating func skip(_ kind: GraphQLToken.Kind) throws(GraphQLSyntaxError) -> Bool {
        guard token.kind == kind else { return false }
        try advance()
        return true
    }

    @discardableResult
    private mutating func expect(_ kind: GraphQLToken.Kind) throws(GraphQLSyntaxError) -> GraphQLToken {
        let taken = token
        guard taken.kind == kind else {
            let wanted = kind == .name ? "Name" : kind == .endOfFile ? "<EOF>" : "\"\(GraphQLToken.punctuator(kind) ?? "")\""
            throw unexpected(expected: wanted)
        }
        try advance()
        return taken
    }

    private mutating func name() throws(GraphQLSyntaxError) -> String { try expect(.name).value }

    private mutating func expectKeyword(_ keyword: String) throws(GraphQLSyntaxError) {
        guard peekName(keyword) else { throw unexpected(expected: "\"\(keyword)\"") }
        try advance()
    }

    private func unexpected(expected: String? = nil) -> GraphQLSyntaxError {
        if let expected { return GraphQLSyntaxError("Expected \(expected), found \(token.described).", at: token.location) }
        return GraphQLSyntaxError("Unexpected \(token.described).", at: token.location)
    }

    /// Runs `body` one level deeper, refusing a document nested past `maximumDepth`.
    private mutating func nested<T>(_ body: (inout GraphQLParser) throws(GraphQLSyntaxError) -> T) throws(GraphQLSyntaxError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maximumDepth else {
            throw GraphQLSyntaxError("Document nests deeper than \(Self.maximumDepth) levels.", at: token.location)
        }
        return try body(&self)
    }

    /// `open item+ close` (`many` in graphql-js): at least one item.
    private mutating func many<T>(_ open: GraphQLToken.Kind, _ close: GraphQLToken.Kind,
                                  _ item: (inout GraphQLParser) throws(GraphQLSyntaxError) -> T) throws(GraphQLSyntaxError) -> [T] {
        try expect(open)
        var items: [T] = []
        repeat {
            items.append(try item(&self))
        } while try !skip(close)
        return items
    }

    // MARK: - Document

    private mutating func document() throws(GraphQLSyntaxError) -> GraphQLDocument {
        var definitions: [GraphQLDefinition] = []
        repeat {
            definitions.append(try definition())
        } while !peek(.endOfFile)
        return GraphQLDocument(definitions: definitions)
    }

    private mutating func definition() throws(GraphQLSyntaxError) -> GraphQLDefinition {
        if peek(.braceLeft) { return .operation(try operation()) }
        guard peek(.name) else { throw unexpected() }
        switch token.value {
        case "query", "mutation", "subscription": return .operation(try operation())
        case "fragment": return .fragment(try fragment())
        case "schema", "scalar", "type", "interface", "union", "enum", "input", "directive", "extend":
            // Type system definitions describe a schema; a request carries none.
            throw GraphQLSyntaxError("Unexpected \(token.described): a request holds only operations and fragments.",
                                     at: token.location)
        default: throw unexpected()
        }
    }

    private mutating func operation() throws(GraphQLSyntaxError) -> GraphQLOperation {
        let location = token.location
        if peek(.braceLeft) {
            return GraphQLOperation(type: .query, name: nil, variables: [], directives: [], selectionSet: try selectionSet(),
                                    location: location)
        }
        let typeToken = try expect(.name)
        guard let type = GraphQLOperationType(rawValue: typeToken.value) else {
            throw GraphQLSyntaxError("Unexpected \(typeToken.described).", at: typeToken.location)
        }
        let name = peek(.name) ? try self.name() : nil
        let variables = peek(.parenLeft) ? try many(.parenLeft, .parenRight) { parser throws(GraphQLSyntaxError) in
            try parser.variableDefinition()
        } : []
        return GraphQLOperation(type: type, name: name, variables: variables, directives: try directives(constant: false),
                                selectionSet: try selectionSet(), location: location)
    }

    private mutating func variableDefinition() throws(GraphQLSyntaxError) -> GraphQLVariableDefinition {
        let location = token.location
        try expect(.dollar)
        let name = try self.name()
        try expect(.colon)
        let type = try typeReference()
        let defaultValue = try skip(.equals) ? try value(constant: true) : nil
        return GraphQLVariableDefinition(name: name, type: type, defaultValue: defaultValue,
                                         directives: try directives(constant: true), location: location)
    }

    private mutating func fragment() throws(GraphQLSyntaxError) -> GraphQLFragment {
        let location = token.location
        try expectKeyword("fragment")
        guard !peekName("on") else { throw unexpected() }
        let name = try self.name()
        try expectKeyword("on")
        let typeCondition = try self.name()
        return GraphQLFragment(name: name, typeCondition: typeCondition, directives: try directives(constant: false),
                               selectionSet: try selectionSet(), location: location)
    }

    // MARK: - Selections

    private mutating func selectionSet() throws(GraphQLSyntaxError) -> [GraphQLSelection] {
        try nested { parser throws(GraphQLSyntaxError) in
            try parser.many(.braceLeft, .braceRight) { parser throws(GraphQLSyntaxError) in try parser.selection() }
        }
    }

    private mutating func selection() throws(GraphQLSyntaxError) -> GraphQLSelection {
        let location = token.location
        guard try skip(.spread) else { return .field(try field()) }
        if peek(.name), !peekName("on") {
            return .fragmentSpread(name: try name(), directives: try directives(constant: false), location: location)
        }
        var typeCondition: String?
        if peekName("on") {
            try advance()
            typeCondition = try name()
        }
        return .inlineFragment(typeCondition: typeCondition, directives: try directives(constant: false),
                               selectionSet: try selectionSet(), location: location)
    }

    private mutating func field() throws(GraphQLSyntaxError) -> GraphQLField {
        let location = token.location
        var alias: String?
        var name = try self.name()
        if try skip(.colon) {
            alias = name
            name = try self.name()
        }
        let arguments = try self.arguments(constant: false)
        let directives = try self.directives(constant: false)
        let selections = peek(.braceLeft) ? try selectionSet() : []
        return GraphQLField(alias: alias, name: name, arguments: arguments, directives: directives,
                            selectionSet: selections, location: location)
    }

    private mutating func arguments(constant: Bool) throws(GraphQLSyntaxError) -> [GraphQLArgument] {
        guard peek(.parenLeft) else { return [] }
        return try many(.parenLeft, .parenRight) { parser throws(GraphQLSyntaxError) in
            let location = parser.token.location
            let name = try parser.name()
            try parser.expect(.colon)
            return GraphQLArgument(name: name, value: try parser.value(constant: constant), location: location)
        }
    }

    private mutating func directives(constant: Bool) throws(GraphQLSyntaxError) -> [GraphQLDirective] {
        var directives: [GraphQLDirective] = []
        while peek(.at) {
            let location = token.location
            try advance()
            directives.append(GraphQLDirective(name: try name(), arguments: try arguments(constant: constant),
                                               location: location))
        }
        return directives
    }

    // MARK: - Values and types

    /// `constant`: where variables may not appear (defaults, and the directives of variable definitions).
    private mutating func value(constant: Bool) throws(GraphQLSyntaxError) -> GraphQLValue {
        let current = token
        switch current.kind {
        case .bracketLeft:
            return try nested { parser throws(GraphQLSyntaxError) in
                try parser.advance()
                var items: [GraphQLValue] = []
                while try !parser.skip(.bracketRight) { items.append(try parser.value(constant: constant)) }
                return .list(items)
            }
        case .braceLeft:
            return try nested { parser throws(GraphQLSyntaxError) in
                try parser.advance()
                var fields: [GraphQLObjectField] = []
                while try !parser.skip(.braceRight) {
                    let name = try parser.name()
                    try parser.expect(.colon)
                    fields.append(GraphQLObjectField(name: name, value: try parser.value(constant: constant)))
                }
                return .object(fields)
            }
        case .int:
            try advance()
            return .int(current.value)
        case .float:
            try advance()
            return .float(current.value)
        case .string, .blockString:
            try advance()
            return .string(current.value)
        case .name:
            try advance()
            switch current.value {
            case "true": return .boolean(true)
            case "false": return .boolean(false)
            case "null": return .null
            default: return .enumValue(current.value)
            }
        case .dollar where !constant:
            try advance()
            return .variable(try name())
        default:
            throw unexpected()
        }
    }

    private mutating func typeReference() throws(GraphQLSyntaxError) -> GraphQLTypeReference {
        try nested { parser throws(GraphQLSyntaxError) in
            var type: GraphQLTypeReference
            if try parser.skip(.bracketLeft) {
                type = .list(try parser.typeReference())
                try parser.expect(.bracketRight)
            } else {
                type = .named(try parser.name())
            }
            if try parser.skip(.bang) { type = .nonNull(type) }
            return type
        }
    }
}
