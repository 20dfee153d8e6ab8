import Foundation

/// Relay's global object ids and connection cursors as graphql-relay writes them, so ids and cursors from
/// parse-server clients work here: a global id is base64 of `<Parse class name>:<objectId>`, a cursor base64 of
/// `arrayconnection:<offset>`.
enum RelayIdentifiers {
    static func globalID(className: String, objectId: String) -> String {
        Data("\(className):\(objectId)".utf8).base64EncodedString()
    }

    /// The class and object id in a global id; nil for anything else (an objectId given as it is).
    static func decodeGlobalID(_ id: String) -> (className: String, objectId: String)? {
        guard let data = Data(base64Encoded: id), let text = String(data: data, encoding: .utf8),
              let colon = text.firstIndex(of: ":") else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// `id` as an objectId of `className`: the object id inside a global id of that class, else `id` itself
    /// (parse-server's `fromGlobalId(id).type === className` test).
    static func objectId(_ id: String, of className: String) -> String {
        if let decoded = decodeGlobalID(id), decoded.className == className { return decoded.objectId }
        return id
    }

    private static let cursorPrefix = "arrayconnection:"

    static func cursor(offset: Int) -> String { Data("\(cursorPrefix)\(offset)".utf8).base64EncodedString() }

    /// The offset in a cursor; nil when it is not one.
    static func offset(cursor: String) -> Int? {
        guard let data = Data(base64Encoded: cursor), let text = String(data: data, encoding: .utf8),
              text.hasPrefix(cursorPrefix) else { return nil }
        return Int(text.dropFirst(cursorPrefix.count))
    }
}
