@testable import AuthCore
import ParseWire
import Testing

struct JSONWebTokenTests {
    @Test func partsAndMalformedTokens() throws {
        // {"alg":"RS256","kid":"k1"} . {"sub":"u1","exp":1} . "sig"
        let token = try JSONWebToken("eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1MSIsImV4cCI6MX0.c2ln")
        #expect(token.algorithm == "RS256" && token.keyId == "k1")
        #expect(token.claims["sub"] == .string("u1"))
        #expect(token.signature == Array("sig".utf8))
        #expect(token.signedBytes == Array("eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1MSIsImV4cCI6MX0".utf8))
        for bad in ["", "a.b", "a.b.c.d", "!!.e30.c2ln", "e30.bm90IGpzb24.c2ln"] {
            #expect(throws: JSONWebToken.malformed, "\(bad)") { try JSONWebToken(bad) }
        }
    }

    @Test func derShapesLibcryptoReads() {
        #expect(DER.unsignedInteger([0x00, 0x00, 0x7f]) == [0x02, 0x01, 0x7f])
        #expect(DER.unsignedInteger([0x80]) == [0x02, 0x02, 0x00, 0x80])
        #expect(DER.element(0x04, [UInt8](repeating: 1, count: 200)).prefix(3) == [0x04, 0x81, 200])
        #expect(DER.ecdsaSignature(raw: [UInt8](repeating: 1, count: 63)) == nil)
        #expect(DER.p256PublicKey(x: [UInt8](repeating: 1, count: 32), y: [UInt8](repeating: 2, count: 31)) == nil)
        // A key of the wrong type for the algorithm is refused before any signature check.
        #expect(IdentityTokenProvider.publicKey(["kty": .string("EC"), "crv": .string("P-256")], algorithm: "RS256") == nil)
        #expect(IdentityTokenProvider.publicKey(["kty": .string("RSA"), "n": .string("AQAB"), "e": .string("AQAB")], algorithm: "RS256") == nil)
        #expect(!SignatureVerifier.verify(publicKey: [0x30, 0x00], message: [1], signature: [1]))
    }
}
