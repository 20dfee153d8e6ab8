import Foundation
import HTTPClient
import ParseWire

/// Providers' signing keys (JSON Web Key Sets), fetched over HTTP and kept for `maxAge` (parse-server's
/// `cacheMaxAge`, an hour by default). A key id the cached set lacks fetches the set again (keys rotate), at
/// most every few seconds per URL so unknown ids cannot make the service hammer the provider.
///
/// One per service, made with its settings (`AuthProviders.keys`), shared by every provider that checks tokens.
actor JWKSCache {
    private struct Entry {
        let keys: [[String: JSONValue]]
        let fetchedAt: ContinuousClock.Instant
    }

    private var entries: [String: Entry] = [:]
    private static let refetchAfter: Duration = .seconds(5)

    func key(id: String?, url: String, maxAge: Duration) async throws -> [String: JSONValue]? {
        let now = ContinuousClock.now
        if let entry = entries[url], now - entry.fetchedAt < maxAge {
            if let key = Self.find(id, in: entry.keys) { return key }
            if now - entry.fetchedAt < Self.refetchAfter { return nil }
        }
        let response = try await ProviderHTTP.client.get(url, headers: ["Accept: application/json"])
        guard response.status == 200, let keys = JSONValue.parse(response.body)?["keys"]?.arrayValue else {
            throw HTTPClient.Failure.failed("no key set at \(url) (status \(response.status))")
        }
        let objects = keys.compactMap(\.objectValue)
        entries[url] = Entry(keys: objects, fetchedAt: now)
        return Self.find(id, in: objects)
    }

    private static func find(_ id: String?, in keys: [[String: JSONValue]]) -> [String: JSONValue]? {
        keys.first { $0["kid"]?.stringValue == id }
    }
}
