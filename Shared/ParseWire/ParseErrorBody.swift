import Foundation

/// JSON bodies for errors, in the exact forms parse-server writes them.
public enum ParseErrorBody {
    /// `{"code":N,"error":"..."}`
    public static func json(_ error: ParseError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(error)) ?? Data(#"{"code":1,"error":"Internal server error."}"#.utf8))
    }

    /// `{"error":"..."}` without a code, as parse-server answers refused keys (403) and body-parser failures.
    public static func bare(_ message: String) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return Array((try? encoder.encode(["error": message])) ?? Data(#"{"error":"unauthorized"}"#.utf8))
    }
}
