/// One lexical token of a GraphQL document (the specification's "Lexical Tokens").
struct GraphQLToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case bang, dollar, ampersand, parenLeft, parenRight, spread, colon, equals, at
        case bracketLeft, bracketRight, braceLeft, pipe, braceRight
        case name, int, float, string, blockString
        case endOfFile
    }

    var kind: Kind
    /// The name, the number's text or the string's value (escapes resolved, a block string's indentation removed).
    var value: String
    var location: GraphQLLocation

    /// How graphql-js names the token in "Expected ..., found ..." messages.
    var described: String {
        switch kind {
        case .endOfFile: "<EOF>"
        case .name: "Name \"\(value)\""
        case .int: "Int \"\(value)\""
        case .float: "Float \"\(value)\""
        case .string, .blockString: "String \"\(value)\""
        default: "\"\(Self.punctuator(kind) ?? "")\""
        }
    }

    static func punctuator(_ kind: Kind) -> String? {
        switch kind {
        case .bang: "!"
        case .dollar: "$"
        case .ampersand: "&"
        case .parenLeft: "("
        case .parenRight: ")"
        case .spread: "..."
        case .colon: ":"
        case .equals: "="
        case .at: "@"
        case .bracketLeft: "["
        case .bracketRight: "]"
        case .braceLeft: "{"
        case .pipe: "|"
        case .braceRight: "}"
        default: nil
        }
    }
}
