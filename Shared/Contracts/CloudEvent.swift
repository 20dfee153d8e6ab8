/// An event for the outside world, in CloudEvents 1.0 structured JSON mode
/// (`content-type: application/cloudevents+json`), so any CloudEvents library can read it.
public struct CloudEvent<Payload: Codable & Sendable>: Codable, Sendable {
    public static var contentType: String { "application/cloudevents+json" }

    public var specversion = "1.0"
    public var id: String
    public var source: String
    /// Versioned, e.g. `vote.cast.v1`.
    public var type: String
    public var time: String
    public var subject: String?
    public var datacontenttype = "application/json"
    public var data: Payload
    /// Extension attributes (CloudEvents allows them beside the core ones; absent when unset): the request that
    /// caused the event (the client's request id), the command whose handling wrote it, and the W3C trace
    /// (the Distributed Tracing extension's `traceparent`). ServiceKit's `Outbox.add` fills them in.
    public var correlationid: String?
    public var causationid: String?
    public var traceparent: String?

    public init(id: String, source: String, type: String, time: String, subject: String?, data: Payload) {
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.subject = subject
        self.data = data
    }
}
