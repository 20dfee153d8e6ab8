import Foundation
import ParseWire

/// GitHub (parse-server's `github` adapter): the access token must belong to the account `authData.id` names, as
/// `GET <apiURL>/user` tells. `apiURL` (default `https://api.github.com`) lets tests point it at a local server.
struct GitHubAuthProvider: AuthProvider {
    let apiURL: String
    var http = ProviderHTTP.client

    static let invalid = ParseError(.objectNotFound, "Github auth is invalid for this user.")

    func validate(_ authData: [String: JSONValue]) async throws {
        guard let token = authData["access_token"]?.stringValue, !token.isEmpty, !token.contains(where: \.isNewline) else {
            throw Self.invalid
        }
        let response = try? await http.get("\(apiURL)/user", headers: ["Authorization: bearer \(token)", "User-Agent: parse-server"])
        guard let response, response.status == 200, let user = JSONValue.parse(response.body),
              let id = user["id"].flatMap({ AuthData.identifier(.object(["id": $0])) }),
              id == AuthData.identifier(.object(authData)) else { throw Self.invalid }
    }
}

/// Facebook (parse-server's `facebook` adapter, Graph API tokens): with `appIds` configured the token must belong to
/// one of those apps (`GET <graphURL>/app`), and it must belong to the user `authData.id` names (`GET <graphURL>/me`).
/// `graphURL` defaults to `https://graph.facebook.com`. Limited Login tokens (`authData.token`) are not supported.
struct FacebookAuthProvider: AuthProvider {
    let graphURL: String
    let appIds: JSONValue?
    var http = ProviderHTTP.client

    static let invalid = ParseError(.objectNotFound, "Facebook auth is invalid for this user.")

    func validate(_ authData: [String: JSONValue]) async throws {
        guard let token = authData["access_token"]?.stringValue, !token.isEmpty else { throw Self.invalid }
        let encoded = AccountMailer.encode(token)
        if let appIds {
            guard let ids = appIds.arrayValue else { throw ParseError(.objectNotFound, "appIds must be an array.") }
            guard !ids.isEmpty else { throw ParseError(.objectNotFound, "Facebook auth is not configured.") }
            let app = try await graph("app?access_token=\(encoded)")
            guard let appId = app?["id"], ids.contains(appId) else { throw Self.invalid }
        }
        let me = try await graph("me?fields=id&access_token=\(encoded)")
        guard let id = me?["id"].flatMap({ AuthData.identifier(.object(["id": $0])) }),
              id == AuthData.identifier(.object(authData)) else { throw Self.invalid }
    }

    private func graph(_ path: String) async throws -> JSONValue? {
        guard let response = try? await http.get("\(graphURL)/\(path)"), response.status == 200 else { return nil }
        return JSONValue.parse(response.body)
    }
}
