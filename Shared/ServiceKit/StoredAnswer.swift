import Contracts
import ParseWire

/// The first answer to an idempotent write, as kept for its retries: the response, or the Parse error.
struct StoredAnswer: Codable, Sendable, Equatable {
    var response: RESTResponse?
    var code: Int?
    var error: String?

    init(_ outcome: Result<RESTResponse, ParseError>) {
        switch outcome {
        case .success(let response): self.response = response
        case .failure(let failure):
            code = failure.code.rawValue
            error = failure.message
        }
    }

    var outcome: Result<RESTResponse, ParseError> {
        if let response { return .success(response) }
        return .failure(ParseError(ParseError.Code(rawValue: code ?? 1), error ?? "Internal server error."))
    }
}
