@testable import AuthCore
import ParseWire
import Testing

struct SessionTokenTests {
    @Test func tokensAreRevocableFormWith128RandomBits() {
        let tokens = (0..<200).map { _ in RandomIdentifiers.sessionToken() }
        for token in tokens {
            #expect(token.hasPrefix("r:"))
            #expect(token.count == 34)
            #expect(token.dropFirst(2).allSatisfy { "0123456789abcdef".contains($0) })
        }
        #expect(Set(tokens).count == tokens.count)
    }

    @Test func objectIdsAreTenAlphanumerics() {
        let id = ObjectId.make()
        #expect(id.count == 10)
        #expect(id.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) })
    }

    @Test func digestIsSHA256OfTheTokenAndComparesInConstantTimeForm() {
        let digest = SessionTokenDigest.digest(of: "r:abc")
        #expect(digest.count == 32)
        #expect(SessionTokenDigest.constantTimeEqual(digest, SessionTokenDigest.digest(of: "r:abc")))
        #expect(!SessionTokenDigest.constantTimeEqual(digest, SessionTokenDigest.digest(of: "r:abd")))
        #expect(!SessionTokenDigest.constantTimeEqual(digest, Array(digest.prefix(31))))
    }
}
