import Foundation

/// Facts about base64 text read without decoding it all: parts pass from the message to PostgreSQL as text.
enum Base64Text {
    /// The number of bytes standard, unwrapped base64 text decodes to; nil when it cannot be such text.
    static func decodedCount(_ text: String) -> Int? {
        let utf8 = text.utf8
        guard utf8.count % 4 == 0 else { return nil }
        let padding = utf8.reversed().prefix(2).prefix { $0 == UInt8(ascii: "=") }.count
        return utf8.count / 4 * 3 - padding
    }

    /// The first bytes (at most 48), for recognising a format.
    static func head(_ text: String) -> [UInt8] {
        let prefix = String(text.prefix(64))
        return Data(base64Encoded: prefix).map(Array.init) ?? Data(base64Encoded: text).map { Array($0.prefix(48)) } ?? []
    }
}
