import Contracts
import ParseWire

/// What a target's answer means, as parse-server reads a webhook's: `{"success": value}` is the result,
/// `{"error": ...}` a refusal (`"message"` is a 141 with that message, `{"code": N, "message"|"error": "..."}` keeps
/// its code), an empty body no result, anything not JSON `Malformed response`. A function's answer may also carry
/// `"status"` and `"headers"`, what parse-server 9's `res.status()` and `res.header()` set.
enum WebhookAnswer {
    struct Success: Equatable {
        var value: JSONValue?
        var status: Int?
        var headers: [String: String]?
    }

    static func decode(_ body: [UInt8]) -> Result<Success, ParseError> {
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return .success(Success()) }
        guard let answer = JSONValue.parse(body) else { return .failure(ParseError(.scriptFailed, "Malformed response")) }
        return interpret(answer)
    }

    static func interpret(_ answer: JSONValue) -> Result<Success, ParseError> {
        guard let fields = answer.objectValue else { return .success(Success()) }
        if let error = fields["error"], error != .null { return .failure(refusal(error)) }
        var success = Success(value: fields["success"])
        if let status = fields["status"], status != .null {
            guard let code = status.numberValue.flatMap({ Int(exactly: $0) }), (100...599).contains(code) else {
                return .failure(ParseError(.scriptFailed, "Invalid response status \(JSONText.encode(status)): an HTTP status is 100 to 599."))
            }
            success.status = code
        }
        if let headers = fields["headers"], headers != .null {
            guard let members = headers.objectValue, members.allSatisfy({ Self.isHeader($0.key, $0.value.stringValue) })
            else { return .failure(ParseError(.scriptFailed, "Invalid response headers: an object of header names and string values.")) }
            success.headers = members.compactMapValues(\.stringValue)
        }
        return .success(success)
    }

    /// A name of token characters and a value without line breaks (no header can be smuggled into the answer);
    /// the length and framing headers stay the server's.
    private static func isHeader(_ name: String, _ value: String?) -> Bool {
        guard let value, !name.isEmpty, !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" })
        else { return false }
        let lower = name.lowercased()
        guard lower != "content-length", lower != "transfer-encoding", lower != "connection" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && $0.value > 32 && $0.value < 127 && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains($0) }
    }

    /// parse-server's `resolveError`: a string keeps its words under 141, a Parse error keeps its code.
    static func refusal(_ error: JSONValue, defaultMessage: String = "Script failed.") -> ParseError {
        switch error {
        case .string(let message):
            return ParseError(.scriptFailed, message)
        case .object(let fields):
            let code = fields["code"]?.numberValue.flatMap { $0 == $0.rounded() ? Int(exactly: $0) : nil } ?? 141
            let message = fields["message"]?.stringValue ?? fields["error"]?.stringValue ?? JSONText.encode(error)
            return ParseError(ParseError.Code(rawValue: code), message)
        case .null, .bool(false):
            return ParseError(.scriptFailed, defaultMessage)
        default:
            return ParseError(.scriptFailed, JSONText.encode(error))
        }
    }

    /// What a trigger's result changes. A beforeSave's object loses `createdAt`, `updatedAt` and `className`, as
    /// parse-server drops them from a webhook's answer; a beforeFind's answer replaces the query when it is one
    /// (an object), an afterFind's the results when it is an array.
    static func triggerResult(_ value: JSONValue?, for trigger: TriggerName) -> TriggerResult {
        switch trigger {
        case .afterEvent:
            // What the event becomes: `{"sendEvent": false}`, another `event`, another `object` or `original`.
            guard let answer = value?.objectValue else { return TriggerResult() }
            return TriggerResult(object: .object(answer))
        case .beforeSave, .beforeSaveFile, .beforeLogin:
            guard var object = value?.objectValue, trigger == .beforeSave || trigger == .beforeSaveFile else {
                return TriggerResult()
            }
            if trigger == .beforeSave {
                object["createdAt"] = nil
                object["updatedAt"] = nil
                object["className"] = nil
            }
            return TriggerResult(object: .object(object))
        case .beforeFind, .beforeSubscribe:
            guard let query = value?.objectValue else { return TriggerResult() }
            return TriggerResult(query: .object(query))
        case .afterFind:
            guard let objects = value?.arrayValue else { return TriggerResult() }
            return TriggerResult(objects: objects)
        default:
            return TriggerResult()
        }
    }
}
