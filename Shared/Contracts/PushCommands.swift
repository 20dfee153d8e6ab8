import ParseWire

/// The data of a `push.requested.v1` event: one push to a batch of installations, for the push adapters to deliver.
/// posts publishes a push's matching installations in batches of one device type each, with routing key
/// `push.requested.<deviceType>` (`push.requested.ios`, `push.requested.android`), so an adapter binds the types
/// it delivers. Each adapter reports the outcome of every device of a batch with `push.report.v1`.
public struct PushRequested: Codable, Sendable, Equatable {
    public static let type = "push.requested.v1"

    public struct Device: Codable, Sendable, Equatable {
        /// The `_Installation` row.
        public var objectId: String
        public var deviceToken: String
        public var deviceType: String
        public var installationId: String?
        /// The installation's badge after this push changed it (badge `Increment` or a number in `data`).
        public var badge: Double?
        public var localeIdentifier: String?
        public var timeZone: String?

        public init(objectId: String, deviceToken: String, deviceType: String, installationId: String? = nil,
                    badge: Double? = nil, localeIdentifier: String? = nil, timeZone: String? = nil) {
            self.objectId = objectId
            self.deviceToken = deviceToken
            self.deviceType = deviceType
            self.installationId = installationId
            self.badge = badge
            self.localeIdentifier = localeIdentifier
            self.timeZone = timeZone
        }
    }

    /// The `_PushStatus` objectId the results are reported against.
    public var pushStatusId: String
    /// The push's `data` as the client sent it (`alert`, `badge`, `sound`, `title`, `content-available`, custom keys).
    public var data: JSONValue
    /// After this moment (a Parse date) the push must not be delivered any more; nil: no limit.
    public var expirationTime: String?
    public var devices: [Device]

    public init(pushStatusId: String, data: JSONValue, expirationTime: String?, devices: [Device]) {
        self.pushStatusId = pushStatusId
        self.data = data
        self.expirationTime = expirationTime
        self.devices = devices
    }
}

/// `push.report.v1` (an adapter to posts): what became of each device of one `push.requested.v1` event. posts
/// counts a report once per event id, so an adapter may send it again after a failure.
public struct ReportPushResults: Codable, Sendable, Equatable {
    public static let type = "push.report.v1"

    public struct Outcome: Codable, Sendable, Equatable {
        public var objectId: String
        public var deviceType: String
        public var transmitted: Bool
        public var error: String?

        public init(objectId: String, deviceType: String, transmitted: Bool, error: String? = nil) {
            self.objectId = objectId
            self.deviceType = deviceType
            self.transmitted = transmitted
            self.error = error
        }
    }

    public var pushStatusId: String
    /// The CloudEvents id of the `push.requested.v1` event reported on.
    public var eventId: String
    public var outcomes: [Outcome]

    public init(pushStatusId: String, eventId: String, outcomes: [Outcome]) {
        self.pushStatusId = pushStatusId
        self.eventId = eventId
        self.outcomes = outcomes
    }
}

/// posts' answer to a `push.report.v1`: whether it counted it (false: that event was reported before).
public struct PushResultsRecorded: Codable, Sendable, Equatable {
    public var counted: Bool

    public init(counted: Bool) { self.counted = counted }
}
