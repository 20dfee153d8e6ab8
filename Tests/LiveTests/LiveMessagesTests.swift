import ParseWire
import Testing
@testable import LiveCore

/// The server's messages in parse-server's shapes (`Client.pushError` and `Client._pushEvent`).
struct LiveMessagesTests {
    @Test func errorsCarryCodeReconnectAndRequestId() throws {
        let text = LiveMessages.error(code: 4, "Key in request is not valid", reconnect: true, requestId: nil)
        #expect(JSONValue.parse(text) == JSONValue.parse(#"{"op":"error","error":"Key in request is not valid","code":4,"reconnect":true,"requestId":null}"#))
        let withId = LiveMessages.error(code: 102, "x", reconnect: false, requestId: .number(3))
        #expect(JSONValue.parse(withId)?["requestId"] == .number(3))
        #expect(JSONValue.parse(withId)?["reconnect"] == .bool(false))
    }

    @Test func eventsLeaveOutAnInstallationIdNobodyGave() {
        let connected = LiveMessages.event("connected", clientId: "c1", installationId: nil)
        #expect(JSONValue.parse(connected) == JSONValue.parse(#"{"op":"connected","clientId":"c1"}"#))
        let update = LiveMessages.event("update", clientId: "c1", installationId: "i1", requestId: .number(1),
                                        object: #"{"objectId":"a"}"#, original: #"{"objectId":"a","votes":1}"#)
        #expect(JSONValue.parse(update) == JSONValue.parse(
            #"{"op":"update","clientId":"c1","installationId":"i1","requestId":1,"object":{"objectId":"a"},"original":{"objectId":"a","votes":1}}"#))
    }
}
