/// When `/health/ready` answers 503 although every service answers its ping: a command queue holding more than
/// `maxQueueDepth` waiting commands (`PARSE_READY_MAX_QUEUE_DEPTH`), or a service whose oldest unpublished
/// outbox event is older than `maxOutboxAge` (`PARSE_READY_MAX_OUTBOX_AGE_MS`). Zero or nil: no such limit.
struct ReadinessLimits: Sendable, Equatable {
    var maxQueueDepth = 0
    var maxOutboxAge: Duration?

    /// Why a service is not ready although it answered, or nil.
    func problem(queueDepth: Int?, outboxAgeSeconds: Double?) -> String? {
        if maxQueueDepth > 0, let queueDepth, queueDepth > maxQueueDepth {
            return "\(queueDepth) commands wait in its queue, more than PARSE_READY_MAX_QUEUE_DEPTH (\(maxQueueDepth))"
        }
        if let maxOutboxAge, let outboxAgeSeconds {
            let limit = Double(maxOutboxAge.components.seconds) + Double(maxOutboxAge.components.attoseconds) / 1e18
            if outboxAgeSeconds > limit {
                return "its oldest unpublished event is \(Int(outboxAgeSeconds * 1000)) ms old, more than "
                    + "PARSE_READY_MAX_OUTBOX_AGE_MS (\(Int(limit * 1000)))"
            }
        }
        return nil
    }
}
