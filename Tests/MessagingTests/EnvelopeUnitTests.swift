import Foundation
import Runtime
import Testing
@testable import Messaging

/// The envelope every command carries: its own id, its request, its cause, when it was sent, its trace.
@Suite struct EnvelopeUnitTests {
    static let message = OutgoingMessage(routingKey: "posts", body: [], type: "rest.v1")

    @Test func aCommandFromTheGatewayHasItsOwnIdItsRequestAndNoCause() {
        let first = Envelope.stamped(Self.message, requestId: "req-1")
        let second = Envelope.stamped(Self.message, requestId: "req-1")
        #expect(first.messageId.flatMap(UUID.init(uuidString:)) != nil)
        #expect(first.messageId != second.messageId)
        #expect(first.headers[Envelope.correlationHeader] == "req-1")
        #expect(first.headers[Envelope.causationHeader] == nil)
        #expect(first.headers[TraceContext.header] == nil)
        let sent = Int64(first.headers[Envelope.sentAtHeader] ?? "") ?? 0
        #expect(abs(sent - Int64(Date().timeIntervalSince1970 * 1000)) < 5_000)
    }

    @Test func aCommandSentWhileHandlingAnotherNamesItAsItsCauseAndKeepsItsTrace() {
        let trace = TraceContext.start()
        let stamped = TraceContext.$current.withValue(trace) {
            MessageContext.$current.withValue(MessageContext(messageId: "cause-1", correlationId: "req-1")) {
                Envelope.stamped(Self.message, requestId: "req-1")
            }
        }
        #expect(stamped.headers[Envelope.causationHeader] == "cause-1")
        let child = stamped.headers[TraceContext.header].flatMap(TraceContext.init(traceparent:))
        #expect(child?.traceId == trace.traceId && child?.spanId != trace.spanId)
    }

    @Test func aDeliveryIsHandledAsItsMessageOfItsRequest() {
        let stamped = Envelope.stamped(Self.message, requestId: "req-2")
        let delivery = Delivery(body: [], routingKey: "posts", messageId: stamped.messageId, type: "rest.v1",
                                headers: stamped.headers)
        #expect(Envelope.requestId(of: delivery) == "req-2")
        #expect(Envelope.context(of: delivery) == MessageContext(messageId: stamped.messageId ?? "", correlationId: "req-2"))
        #expect((Envelope.waitedMilliseconds(delivery, now: Date().addingTimeInterval(2)) ?? 0) >= 1_900)
        // A command sent before the envelope existed had its request id as its message id.
        let older = Delivery(body: [], routingKey: "posts", messageId: "req-3", type: "rest.v1")
        #expect(Envelope.requestId(of: older) == "req-3" && Envelope.waitedMilliseconds(older) == nil)
    }
}
