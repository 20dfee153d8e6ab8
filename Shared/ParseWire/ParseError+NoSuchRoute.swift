extension ParseError {
    /// A path no route matches. parse-server leaves it to Express, which answers 404; the services answer this
    /// error (code 108, an SDK can decode it) and the gateway sends it with parse-server's 404.
    public static func noSuchRoute(_ method: String, _ path: String) -> ParseError {
        ParseError(.commandUnavailable, "Cannot \(method) \(path): no such route.")
    }

    /// The error crosses the broker as a code and a message only, so the message's fixed ending tells it from
    /// other code 108 answers (an unsupported operator is a 400 in parse-server).
    public var isNoSuchRoute: Bool { code == .commandUnavailable && message.hasSuffix(": no such route.") }
}
