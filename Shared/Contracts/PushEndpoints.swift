import Foundation
import ParseWire

/// Where the HTTP push adapter POSTs each device type's notifications, written
/// `ios=https://a.example/push,android=https://b.example/push,*=https://c.example/push` (`*` for every other type):
/// the stack's own app's from `PARSE_PUSH_HTTP_ENDPOINTS`, another app's from its registry entry.
public struct PushEndpoints: Sendable, Equatable {
    public var byType: [String: URL]

    /// 107 (invalid JSON, as parse-server names a malformed value) for an entry that is not `type=http(s)://...`.
    public init(_ text: String) throws(ParseError) {
        var byType: [String: URL] = [:]
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let url = URL(string: parts[1]),
                  url.scheme == "http" || url.scheme == "https", url.host?.isEmpty == false else {
                throw ParseError(.invalidJSON, "'\(entry)' is not deviceType=http(s)://...")
            }
            byType[parts[0]] = url
        }
        self.byType = byType
    }

    public func url(for deviceType: String) -> URL? { byType[deviceType] ?? byType["*"] }

    /// The endpoints as they are written, by device type.
    public var text: String { byType.keys.sorted().map { "\($0)=\(byType[$0]!.absoluteString)" }.joined(separator: ",") }
}
