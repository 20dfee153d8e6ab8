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

    public init(id: String, source: String, type: String, time: String, subject: String?, data: Payload) {
        self.id = id
        self.source = source
        self.type = type
        self.time = time
        self.subject = subject
        self.data = data
    }
}
