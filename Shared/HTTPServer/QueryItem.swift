/// One `name=value` pair of a request's query string, already percent-decoded (`+` reads as a space, as in
/// HTML forms). A name given without `=` has the value "".
public struct QueryItem: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
