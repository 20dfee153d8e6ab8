import Contracts
import ParseWire

/// The first answer to an idempotent write, as kept for its retries: the response, or the Parse error. Written
/// with the project's JSON text encoder (on every idempotent write), read back only for a retry.
struct StoredAnswer: Sendable, Equatable {
    var outcome: Result<RESTResponse, ParseError>

    init(_ outcome: Result<RESTResponse, ParseError>) {
        self.outcome = outcome
    }

    init?(text: String) {
        guard let value = JSONValue.parse(text) else { return nil }
        if let response = value["response"].flatMap(RESTResponse.init(jsonValue:)) {
            outcome = .success(response)
        } else if let code = value["code"]?.numberValue.flatMap({ Int(exactly: $0) }),
                  let message = value["error"]?.stringValue {
            outcome = .failure(ParseError(ParseError.Code(rawValue: code), message))
        } else {
            return nil
        }
    }

    var text: String {
        switch outcome {
        case .success(let response): JSONValue.object(["response": response.jsonValue]).compactText
        case .failure(let error):
            JSONValue.object(["code": .number(Double(error.code.rawValue)), "error": .string(error.message)]).compactText
        }
    }
}
