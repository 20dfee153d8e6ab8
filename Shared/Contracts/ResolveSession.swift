/// `session.resolve.v1` (gateway and live to auth): the session token travels in the command's identity, the
/// payload is `Empty`; the answer is the `Identity` every command of that request then carries: user id, the
/// `role:<name>` entries of every role held (nested roles included), and the token. 209 for an unknown or
/// expired token.
public enum ResolveSession {
    public static let type = "session.resolve.v1"
}
