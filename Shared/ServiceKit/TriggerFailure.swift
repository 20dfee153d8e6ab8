import Contracts
import Messaging
import ParseWire

/// The Parse errors of triggers that could not run. parse-server answers a failed trigger with 141
/// (`SCRIPT_FAILED`); a trigger that cannot be reached fails the same way, so the write is refused rather than
/// stored without the trigger it has.
public enum TriggerFailure {
    public static let scriptFailed = ParseError.Code(rawValue: 141)

    static func unreachable(_ key: TriggerKey, _ error: MessagingError) -> ParseError {
        let why = switch error {
        case .timeout(_, let milliseconds): "it did not answer within \(milliseconds) ms"
        case .unavailable, .connectionLost: "the message broker is not reachable"
        default: "\(error)"
        }
        return ParseError(scriptFailed, "Cloud Code is not reachable, so the \(key.triggerName.rawValue) trigger of "
                          + "\(key.className) could not run: \(why).")
    }

    /// A before trigger asked with no time left for it.
    static func noTimeLeft(_ key: TriggerKey) -> ParseError {
        ParseError(.timeout, "Request timed out before the \(key.triggerName.rawValue) trigger of \(key.className) could run.")
    }
}
