import ParseWire

/// The JSON object a request carries.
public enum RequestBody {
    /// The JSON object of a write; `{}` when there is no body.
    public static func object(_ text: String?) throws(ParseError) -> [String: JSONValue] {
        guard let text, !text.isEmpty else { return [:] }
        guard let object = JSONValue.parse(text)?.objectValue else { throw ParseError(.invalidJSON, "Invalid JSON") }
        return object
    }
}
