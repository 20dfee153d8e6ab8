import Contracts
import Foundation
import ParseWire
import Testing

@Suite struct CommandReplyTests {
    private func sortedJSON<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func successIsWrappedInOk() throws {
        let reply = CommandReply<Pong>.success(Pong(service: "auth", instance: "a1", database: "ok", version: "1"))
        #expect(try sortedJSON(reply) == #"{"ok":{"database":"ok","instance":"a1","service":"auth","version":"1"}}"#)
    }

    @Test func failureIsTheParseErrorUnderError() throws {
        let reply = CommandReply<Pong>.failure(ParseError(.objectNotFound, "Object not found."))
        #expect(try sortedJSON(reply) == #"{"error":{"code":101,"error":"Object not found."}}"#)
    }

    @Test func emptySuccessIsAnEmptyObject() throws {
        #expect(try sortedJSON(CommandReply<Empty>.success(Empty())) == #"{"ok":{}}"#)
    }

    @Test func successRoundTrips() throws {
        let pong = Pong(service: "posts", instance: "p-7", database: "ok", version: "2.0")
        let data = try JSONEncoder().encode(CommandReply<Pong>.success(pong))
        let decoded = try JSONDecoder().decode(CommandReply<Pong>.self, from: data)
        #expect(try decoded.get() == pong)
    }

    @Test func failureRoundTripsAndThrowsFromGet() throws {
        let error = ParseError(.operationForbidden, "Permission denied")
        let data = try JSONEncoder().encode(CommandReply<Pong>.failure(error))
        let decoded = try JSONDecoder().decode(CommandReply<Pong>.self, from: data)
        #expect(throws: error) { try decoded.get() }
    }

    @Test func errorHalfDecodesWithoutKnowingThePayload() throws {
        let data = Data(#"{"error":{"code":124,"error":"late"}}"#.utf8)
        let decoded = try JSONDecoder().decode(CommandReply<Empty>.self, from: data)
        guard case .failure(let error) = decoded else {
            Issue.record("expected a failure, got \(decoded)")
            return
        }
        #expect(error == ParseError(.timeout, "late"))
    }

    @Test func replyWithNeitherHalfIsRejected() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CommandReply<Pong>.self, from: Data("{}".utf8))
        }
    }
}
