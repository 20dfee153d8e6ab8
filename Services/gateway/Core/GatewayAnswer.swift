import HTTPServer

/// The gateway's response to a request with what answering it read of the request, so that the layers around
/// the responder (the session cache's upkeep) use the same parsed body instead of parsing it again.
struct GatewayAnswer: Sendable {
    var response: HTTPResponse
    /// The method with the JavaScript SDK's `_method` override applied, once the body was read.
    var method: String
    /// Nil when the request was answered before its body was read (an unknown route, a file, invalid JSON).
    var body: JSONBody?
    /// A `POST /batch` body, when the request was one.
    var batch: BatchRequest?
}
