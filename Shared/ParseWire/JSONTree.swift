/// What `JSONParser` builds: `JSONValue`, or `JSONNode` for the messages' decoder. The parser is specialised for
/// each, so neither pays for the other's shape of object.
protocol JSONTree {
    /// An object's members while they are read.
    associatedtype Members

    static var null: Self { get }
    static func bool(_ flag: Bool) -> Self
    static func number(_ number: Double) -> Self
    static func string(_ text: String) -> Self
    static func array(_ items: [Self]) -> Self
    static func object(_ members: Members) -> Self

    static func noMembers() -> Members
    static func add(_ key: String, _ value: Self, to members: inout Members)
}

extension JSONValue: JSONTree {
    static func noMembers() -> [String: JSONValue] { [:] }

    /// A key written twice keeps its last value, as with `JSON.parse`.
    static func add(_ key: String, _ value: JSONValue, to members: inout [String: JSONValue]) {
        members[key] = value
    }
}
