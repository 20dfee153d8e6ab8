extension MessageBatch {
    /// The deliveries a received batch carries, each with the batch's tag and properties and its own part's
    /// fields; `settlement` (for a consumer that acks) counts their acks so the batch is acked once, with the last.
    static func unpack(_ delivery: Delivery, parts: [Part], settlement: BatchSettlement?) -> [Delivery] {
        parts.map { part in
            var single = delivery
            single.body = part.body
            single.correlationId = part.correlationId
            single.messageId = part.messageId
            single.type = part.type
            single.headers = part.headers
            single.batch = settlement
            return single
        }
    }
}
