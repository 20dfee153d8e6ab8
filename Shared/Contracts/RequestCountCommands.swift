/// `requests.count.v1` (a gateway to posts): the API requests a gateway answered since its last report, counted
/// per hour, route template and HTTP status, for the dashboard's Analytics view. posts adds each report once,
/// by its `reportId`, so a gateway may send it again when the first answer was lost.
public struct RecordRequestCounts: Codable, Sendable, Equatable {
    public static let type = "requests.count.v1"

    public struct Count: Codable, Sendable, Equatable {
        /// The start of the hour, a Parse date (`2026-12-01T14:00:00.000Z`).
        public var hour: String
        /// The method and route template, such as `GET /classes/:className`.
        public var route: String
        public var status: Int
        public var count: Int

        public init(hour: String, route: String, status: Int, count: Int) {
            self.hour = hour
            self.route = route
            self.status = status
            self.count = count
        }
    }

    public var reportId: String
    public var counts: [Count]

    public init(reportId: String, counts: [Count]) {
        self.reportId = reportId
        self.counts = counts
    }
}

/// posts' answer to a `requests.count.v1`: whether it added the report (false: it had been added before).
public struct RequestCountsRecorded: Codable, Sendable, Equatable {
    public var added: Bool

    public init(added: Bool) { self.added = added }
}
