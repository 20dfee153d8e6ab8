import ParseWire

/// A request body parsed as parse-server's body parser does: every body is JSON whatever its Content-Type, and
/// the JavaScript SDK's envelope fields (`_method`, `_ApplicationId`, ...) are taken out of it.
struct JSONBody {
    static let envelopeFields: Set<String> = [
        "_method", "_ApplicationId", "_JavaScriptKey", "_ClientKey", "_MasterKey", "_SessionToken",
        "_ClientVersion", "_InstallationId", "_RevocableSession", "_context", "_ContentType",
    ]

    /// Envelope fields that are strings.
    var envelope: [String: String] = [:]
    /// The body without the envelope, re-encoded; nil for an empty body.
    var payload: String?
    /// `payload` as parsed, so that what routes the request (votes, batches, Cloud functions) reads it without
    /// parsing the text again; nil for an empty body.
    var fields: [String: JSONValue]?
    /// The JavaScript SDK's `_context` (an object, or its JSON text), for Cloud Code triggers.
    var context: JSONValue?

    /// Throws `{"code":107,"error":"Invalid JSON"}` for a body that is not a JSON object.
    init(_ bytes: [UInt8]) throws(ParseError) {
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return }
        let parsed = JSONValue.parseReporting(bytes)
        if case .failure(let error) = parsed { throw error.parseError }
        guard let fields = (try? parsed.get())?.objectValue else { throw ParseError(.invalidJSON, "Invalid JSON") }
        var rest = fields
        if let value = rest["_context"], value.stringValue == nil { context = rest.removeValue(forKey: "_context") }
        for key in Self.envelopeFields {
            if case .string(let value)? = rest.removeValue(forKey: key) {
                envelope[key] = value
                if key == "_context" { context = .string(value) }
            }
        }
        payload = rest.count == fields.count ? String(decoding: bytes, as: UTF8.self) : JSONValue.object(rest).compactText
        self.fields = rest
    }
}
