import ParseWire
import Testing
@testable import Messaging

@Suite struct MessagingErrorUnitTests {
    @Test func timeoutIsCode124AndNamesTheService() {
        let error = MessagingError.timeout(queue: "posts", milliseconds: 10_000).parseError
        #expect(error.code == .timeout)
        #expect(error.code.rawValue == 124)
        #expect(error.httpStatus == 504)
        #expect(error.message.contains("posts"))
        #expect(error.message.contains("10000"))
    }

    @Test(arguments: [MessagingError.unavailable, .connectionLost])
    func brokerTroubleIsCode100(failure: MessagingError) {
        let error = failure.parseError
        #expect(error.code.rawValue == 100)
        #expect(error.httpStatus == 503)
    }

    @Test(arguments: [MessagingError.invalidURL("x"), .publishRejected("nack"), .malformedReply("bad json")])
    func otherFailuresAreInternalErrorsWithoutDetails(failure: MessagingError) {
        let error = failure.parseError
        #expect(error == .internalError)
        #expect(error.httpStatus == 500)
    }

    @Test func descriptionsExplainTheFailure() {
        #expect(MessagingError.timeout(queue: "auth", milliseconds: 5).description == "'auth' did not answer within 5 ms")
        #expect(MessagingError.invalidURL("http://x").description.contains("http://x"))
        #expect(MessagingError.publishRejected("no route").description.contains("no route"))
    }
}
