import ParseGraphQL
import ParseWire
import Synchronization

/// A backend that answers REST calls from a table and records them, for tests of what the GraphQL API asks.
final class RecordingBackend: ParseGraphQLBackend {
    struct Call: Equatable {
        var method: String
        var path: String
        var query: [String: String]
        var body: JSONValue?
    }

    let calls = Mutex<[Call]>([])
    let answer: @Sendable (Call) throws -> JSONValue
    let sessionToken: String?

    init(sessionToken: String? = nil, answer: @escaping @Sendable (Call) throws -> JSONValue) {
        self.sessionToken = sessionToken
        self.answer = answer
    }

    var recorded: [Call] { calls.withLock { $0 } }

    func rest(_ method: String, _ path: String, query: [String: String], body: JSONValue?) async throws -> JSONValue {
        let call = Call(method: method, path: path, query: query, body: body)
        calls.withLock { $0.append(call) }
        return try answer(call)
    }

    func runFunction(_ name: String, params: JSONValue) async throws -> JSONValue {
        let call = Call(method: "FUNCTION", path: name, query: [:], body: params)
        calls.withLock { $0.append(call) }
        return try answer(call)
    }

    func uploadFile(name: String, contentType: String?, bytes: [UInt8]) async throws -> JSONValue {
        let call = Call(method: "UPLOAD", path: name, query: ["contentType": contentType ?? "", "bytes": String(bytes.count)], body: nil)
        calls.withLock { $0.append(call) }
        return try answer(call)
    }

    func resetPassword(username: String, token: String, password: String) async throws {
        calls.withLock { $0.append(Call(method: "RESET", path: username, query: ["token": token], body: nil)) }
    }

    func actingFor(sessionToken: String) async throws -> any ParseGraphQLBackend {
        RecordingBackend(sessionToken: sessionToken, answer: answer)
    }
}
