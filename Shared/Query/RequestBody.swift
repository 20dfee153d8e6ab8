import ParseWire

/// The JSON object a request carries.
public enum RequestBody {
    /// The JSON object of a write; `{}` when there is no body.
    public static func object(_ text: String?) throws(ParseError) -> [String: JSONValue] {
        guard let text, !text.isEmpty else { return [:] }
        switch JSONValue.parseReporting(text) {
        case .success(.object(let object)): return object
        case .success: throw ParseError(.invalidJSON, "Invalid JSON")
        case .failure(let error): throw error.parseError
        }
    }
}
