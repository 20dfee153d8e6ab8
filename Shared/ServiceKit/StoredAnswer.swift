import Contracts
import ParseWire

/// The first answer to an idempotent write, as kept for its retries: the response (`{"response":{...}}`), or the
/// Parse error (`{"code":N,"error":"..."}`). Written on every idempotent write, read back only for a retry.
struct StoredAnswer: Sendable, Equatable {
    var outcome: Result<RESTResponse, ParseError>

    private struct Stored: Codable {
        var response: RESTResponse
    }

    init(_ outcome: Result<RESTResponse, ParseError>) {
        self.outcome = outcome
    }

    init?(text: String) {
        let bytes = Array(text.utf8)
        if let stored = try? JSONValueDecoder().decode(Stored.self, from: bytes) {
            outcome = .success(stored.response)
        } else if let error = try? JSONValueDecoder().decode(ParseError.self, from: bytes) {
            outcome = .failure(error)
        } else {
            return nil
        }
    }

    var text: String {
        // Neither can fail: no number beyond 2^53, no NaN.
        let bytes = switch outcome {
        case .success(let response): try? JSONValueEncoder().encode(Stored(response: response))
        case .failure(let error): try? JSONValueEncoder().encode(error)
        }
        return String(decoding: bytes ?? [], as: UTF8.self)
    }
}
