import Messaging
import ParseWire
import Runtime
import Testing
@testable import GatewayCore

/// What a client gets for a failed call to a service, decided in one place.
@Suite struct CallFailureTests {
    private let logger = Logger(service: "gateway-test", level: .error)

    @Test func aServicesRefusalIsAnsweredAsItIs() {
        let refusal = ParseError(.objectNotFound, "Object not found.")
        #expect(CallFailure.parseError(refusal, write: true, call: "test", logger: logger) == refusal)
    }

    @Test func aTimedOutWriteMayHaveBeenAppliedAndATimedOutReadNot() {
        let timeout = MessagingError.timeout(queue: "posts", milliseconds: 3000)
        let write = CallFailure.parseError(timeout, write: true, call: "test", logger: logger)
        let read = CallFailure.parseError(timeout, write: false, call: "test", logger: logger)
        #expect(write.code == .timeout && write.message.contains("may have been applied"))
        #expect(read.code == .timeout && !read.message.contains("may have been applied"))
        #expect(CallFailure.parseError(MessagingError.unavailable, write: true, call: "test", logger: logger).code
                == .connectionFailed)
    }

    @Test func anythingElseIsAnInternalErrorWithoutItsDetails() {
        struct Unexpected: Error {}
        #expect(CallFailure.parseError(Unexpected(), write: false, call: "test", logger: logger) == .internalError)
    }
}
