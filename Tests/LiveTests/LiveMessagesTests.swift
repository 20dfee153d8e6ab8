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
        let subscribed = LiveMessages.event("subscribed", clientId: "c1", installationId: "i1", requestId: .number(2))
        #expect(JSONValue.parse(subscribed) == JSONValue.parse(#"{"op":"subscribed","clientId":"c1","installationId":"i1","requestId":2}"#))
    }

    /// An object event's frame: a whole text frame, its payload parse-server's `_pushEvent` shape.
    @Test func anEventFrameIsATextFrameOfTheEventInParseServersShape() throws {
        let head = LiveMessages.eventHead(clientId: "c", installationId: nil, requestId: .number(1))
        let update = LiveMessages.eventFrame(.update, head: head, object: Array(#"{"objectId":"a"}"#.utf8),
                                             original: Array(#"{"objectId":"a","votes":1}"#.utf8))
        // Up to 125 bytes the length is the second byte.
        #expect(update[0] == 0x81 && Int(update[1]) == update.count - 2)
        #expect(JSONValue.parse(String(decoding: update.dropFirst(2), as: UTF8.self)) == JSONValue.parse(
            #"{"op":"update","clientId":"c","requestId":1,"object":{"objectId":"a"},"original":{"objectId":"a","votes":1}}"#))

        let name = String(repeating: "é\"", count: 100)
        let object = Array(JSONValue.object(["objectId": .string("b"), "name": .string(name)]).compactText.utf8)
        let created = LiveMessages.eventFrame(.create, head: LiveMessages.eventHead(clientId: "c\"2", installationId: "i1",
                                                                                    requestId: .string("r")),
                                              object: object, original: nil)
        // Past 125 bytes the length takes the two bytes after the 126 marker.
        #expect(created[0] == 0x81 && created[1] == 126)
        #expect(Int(created[2]) << 8 | Int(created[3]) == created.count - 4)
        let payload = try #require(JSONValue.parse(String(decoding: created.dropFirst(4), as: UTF8.self)))
        #expect(payload == .object(["op": .string("create"), "clientId": .string("c\"2"), "installationId": .string("i1"),
                                    "requestId": .string("r"),
                                    "object": .object(["objectId": .string("b"), "name": .string(name)])]))
    }
}
