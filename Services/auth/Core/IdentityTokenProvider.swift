import Foundation
import ParseWire

/// Providers that sign an OpenID identity token (Sign in with Apple, Google, and any OpenID provider configured
/// with `jwksUrl` and `issuer`): the token's RS256 or ES256 signature is checked against the provider's published
/// keys, then `exp`, `aud` (the configured `clientId`s) and `iss`, and its `sub` must be the `authData.id`.
/// Messages are parse-server's (which come from `jsonwebtoken`).
struct IdentityTokenProvider: AuthProvider {
    /// Where `authData` carries the token: `token` for Apple, `id_token` for Google.
    let tokenFields: [String]
    let issuers: [String]
    let issuerError: String
    let clientIds: [String]
    let jwksURL: String
    let cacheMaxAge: Duration
    let keys: JWKSCache

    static func notFound(_ message: String) -> ParseError { ParseError(.objectNotFound, message) }

    func validate(_ authData: [String: JSONValue]) async throws {
        guard let token = tokenFields.lazy.compactMap({ authData[$0]?.stringValue }).first, !token.isEmpty else {
            throw Self.notFound("id token is invalid for this user.")
        }
        let jwt = try JSONWebToken(token)
        let key: [String: JSONValue]?
        do {
            key = try await keys.key(id: jwt.keyId, url: jwksURL, maxAge: cacheMaxAge)
        } catch {
            throw Self.notFound("Unable to find matching key for Key ID: \(jwt.keyId ?? "undefined")")
        }
        guard let key else { throw Self.notFound("Unable to find matching key for Key ID: \(jwt.keyId ?? "undefined")") }
        guard let der = Self.publicKey(key, algorithm: jwt.algorithm) else { throw Self.notFound("invalid algorithm") }
        let signature = jwt.algorithm == "ES256" ? DER.ecdsaSignature(raw: jwt.signature) : jwt.signature
        guard let signature, SignatureVerifier.verify(publicKey: der, message: jwt.signedBytes, signature: signature) else {
            throw Self.notFound("invalid signature")
        }
        let now = Date().timeIntervalSince1970
        if let notBefore = jwt.claims["nbf"]?.numberValue, notBefore > now { throw Self.notFound("jwt not active") }
        if let expires = jwt.claims["exp"]?.numberValue, expires <= now { throw Self.notFound("jwt expired") }
        if !clientIds.isEmpty {
            let audiences = jwt.claims["aud"].map { $0.arrayValue?.compactMap(\.stringValue) ?? [$0.stringValue].compactMap { $0 } } ?? []
            guard audiences.contains(where: clientIds.contains) else {
                throw Self.notFound("jwt audience invalid. expected: \(clientIds.joined(separator: " or "))")
            }
        }
        let issuer = jwt.claims["iss"]?.stringValue
        guard let issuer, issuers.contains(issuer) else { throw Self.notFound("\(issuerError) | from: \(issuer ?? "undefined")") }
        guard let subject = jwt.claims["sub"]?.stringValue, subject == AuthData.identifier(.object(authData)) else {
            throw Self.notFound("auth data is invalid for this user.")
        }
    }

    /// The key as DER, when its type fits the token's algorithm: RSA for RS256, P-256 for ES256.
    static func publicKey(_ key: [String: JSONValue], algorithm: String?) -> [UInt8]? {
        if let keyAlgorithm = key["alg"]?.stringValue, keyAlgorithm != algorithm { return nil }
        switch (algorithm, key["kty"]?.stringValue) {
        case ("RS256", "RSA"):
            guard let n = key["n"]?.stringValue.flatMap(Base64URL.decode), let e = key["e"]?.stringValue.flatMap(Base64URL.decode),
                  n.count >= 256 else { return nil }
            return DER.rsaPublicKey(modulus: n, exponent: e)
        case ("ES256", "EC"):
            guard key["crv"]?.stringValue == "P-256", let x = key["x"]?.stringValue.flatMap(Base64URL.decode),
                  let y = key["y"]?.stringValue.flatMap(Base64URL.decode) else { return nil }
            return DER.p256PublicKey(x: x, y: y)
        default:
            return nil
        }
    }
}
