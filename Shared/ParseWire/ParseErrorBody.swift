import Runtime

/// The bodies of Parse errors, written directly: every refused request answers one, so they are not worth a
/// general-purpose encoder's set-up.
public enum ParseErrorBody {
    /// `{"code":N,"error":"..."}`
    public static func json(_ error: ParseError) -> [UInt8] {
        var body = Array(#"{"code":"#.utf8)
        body.append(contentsOf: String(error.code.rawValue).utf8)
        body.append(contentsOf: #","error":"#.utf8)
        JSONEscaping.write(error.message, into: &body)
        body.append(UInt8(ascii: "}"))
        return body
    }

    /// `{"error":"..."}` without a code, as parse-server answers refused keys (403) and body-parser failures.
    public static func bare(_ message: String) -> [UInt8] {
        var body = Array(#"{"error":"#.utf8)
        JSONEscaping.write(message, into: &body)
        body.append(UInt8(ascii: "}"))
        return body
    }
}
