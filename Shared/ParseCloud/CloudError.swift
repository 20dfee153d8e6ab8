/// A refusal a handler throws: the caller gets `{"code": code, "error": message}`. Any other error a handler
/// throws reaches the caller as a 141 with the error's description, as parse-server treats a thrown string.
public struct CloudError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: Int
    public var message: String

    public init(_ message: String, code: Int = 141) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
