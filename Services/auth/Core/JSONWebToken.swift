import Foundation
import ParseWire

/// A signed JSON Web Token (JWS compact form): its header, claims, the bytes that were signed and the signature.
/// Parsing checks only the shape; `IdentityTokenVerifier` checks the signature and claims.
struct JSONWebToken: Sendable {
    let header: [String: JSONValue]
    let claims: [String: JSONValue]
    let signedBytes: [UInt8]
    let signature: [UInt8]

    var algorithm: String? { header["alg"]?.stringValue }
    var keyId: String? { header["kid"]?.stringValue }

    /// parse-server's message for anything that is not a JWT.
    static let malformed = ParseError(.objectNotFound, "provided token does not decode as JWT")

    init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count <= 16_384,
              let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]),
              let header = JSONValue.parse(headerBytes)?.objectValue, let claims = JSONValue.parse(claimBytes)?.objectValue else {
            throw Self.malformed
        }
        self.header = header
        self.claims = claims
        self.signature = signature
        signedBytes = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }
}
