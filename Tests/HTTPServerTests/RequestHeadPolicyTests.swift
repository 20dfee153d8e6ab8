@testable import HTTPServer
import Testing

@Suite struct RequestHeadPolicyTests {
    let policy = RequestHeadPolicy(maxBodyBytes: 100)

    @Test func acceptsOneContentLengthWithinTheLimit() {
        #expect(policy.verdict(for: ["Content-Length": "100"]) == .accept(declaredLength: 100))
        #expect(policy.verdict(for: HTTPHeaders()) == .accept(declaredLength: nil))
    }

    @Test func refusesADeclaredLengthOverTheLimit() {
        #expect(policy.verdict(for: ["Content-Length": "101"]) == .payloadTooLarge(declaredLength: 101))
        #expect(policy.verdict(for: ["Content-Length": "99999999999999999999999"]) == .payloadTooLarge(declaredLength: nil))
    }

    @Test func refusesSeveralContentLengths() {
        #expect(policy.verdict(for: HTTPHeaders([("Content-Length", "3"), ("content-length", "4")])) == .badRequest)
        #expect(policy.verdict(for: HTTPHeaders([("Content-Length", "3"), ("Content-Length", "3")])) == .badRequest)
    }

    @Test func refusesContentLengthWithTransferEncoding() {
        let headers = HTTPHeaders([("Content-Length", "3"), ("Transfer-Encoding", "chunked")])
        #expect(policy.verdict(for: headers) == .badRequest)
    }

    @Test func acceptsChunkedAloneAndRefusesOtherEncodings() {
        #expect(policy.verdict(for: ["Transfer-Encoding": " Chunked "]) == .accept(declaredLength: nil))
        #expect(policy.verdict(for: ["Transfer-Encoding": "gzip, chunked"]) == .badRequest)
        #expect(policy.verdict(for: HTTPHeaders([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")]))
                == .badRequest)
    }
}
