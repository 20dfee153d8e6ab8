public enum HTTPServerError: Error, Sendable, Equatable {
    /// The daemon could not start (bad bind address, port in use, already started, ...).
    case cannotStart(String)
}
