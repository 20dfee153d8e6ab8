import Messaging
import ParseWire
import Runtime

/// The one place the gateway turns a failed call to a service into the Parse error its client gets: a service's
/// refusal as it is; a broker or time-out failure as `MessagingError` says (for a write, a time-out is "may have
/// been applied", 124); anything else is code 1, with the details in the log only.
enum CallFailure {
    /// `call` names the call in the log line ("vote call", "service call", ...); `fields` are added to it.
    static func parseError(_ error: any Error, write: Bool, call: String, logger: Logger,
                           _ fields: [String: String] = [:]) -> ParseError {
        switch error {
        case let refusal as ParseError:
            return refusal
        case let failure as MessagingError:
            logger.warning("\(call) failed", fields.merging(["error": failure.description]) { $1 })
            return write ? failure.parseErrorForWrite : failure.parseError
        default:
            logger.error("\(call) failed", fields.merging(["error": "\(error)"]) { $1 })
            return .internalError
        }
    }
}
