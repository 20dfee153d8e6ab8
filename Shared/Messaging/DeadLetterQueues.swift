import Contracts

/// Lists, requeues and purges the commands in a service's `<queue>.dead`, and tells the depth and consumers of any
/// queue, over a connection of its own.
/// Every call blocks its thread while it talks to the broker: call it from a command-line tool or a thread of
/// its own, never from Swift's cooperative pool.
public struct DeadLetterQueues: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let url: AMQPURL
    public var timeoutSeconds: Int

    public init(url: AMQPURL, timeoutSeconds: Int = 5) {
        self.url = url
        self.timeoutSeconds = timeoutSeconds
    }

    /// How many commands each of `queues` (command queues: `votes`, not `votes.dead`) has dead-lettered.
    public func counts(_ queues: [String]) throws(Failure) -> [String: Int] {
        try session { session throws(AMQPSession.Failure) in
            var counts: [String: Int] = [:]
            for queue in queues { counts[queue] = try session.messageCount(Topology.deadLetterQueue(of: queue)) }
            return counts
        }
    }

    /// How many commands wait in each of `queues` themselves (ready, not yet taken by a consumer).
    public func depths(_ queues: [String]) throws(Failure) -> [String: Int] {
        try session { session throws(AMQPSession.Failure) in
            var counts: [String: Int] = [:]
            for queue in queues { counts[queue] = try session.messageCount(queue) }
            return counts
        }
    }

    /// How many consumers read each of `queues`; a queue that does not exist is left out.
    public func consumers(_ queues: [String]) throws(Failure) -> [String: Int] {
        var counts: [String: Int] = [:]
        for queue in queues {
            // A passive declare of a missing queue closes the channel: each queue gets a session of its own.
            let session = try connected()
            defer { session.close() }
            if let count = try? session.consumerCount(queue) { counts[queue] = count }
        }
        return counts
    }

    /// The first `limit` dead letters of `queue`, left where they are.
    public func list(_ queue: String, limit: Int) throws(Failure) -> [DeadLetter] {
        // Taken without acknowledging: closing the session gives every one back to the queue.
        try session { session throws(AMQPSession.Failure) in
            var letters: [DeadLetter] = []
            while letters.count < limit, let taken = try session.take(Topology.deadLetterQueue(of: queue)) {
                letters.append(taken.message)
            }
            return letters
        }
    }

    /// Publishes up to `limit` dead letters of `queue` to `queue` again, with fresh delivery attempts and no reply
    /// address (their callers stopped waiting long ago), and removes them from the dead-letter queue once the
    /// broker confirmed the copies. The number requeued.
    public func requeue(_ queue: String, limit: Int) throws(Failure) -> Int {
        try session { session throws(AMQPSession.Failure) in
            try session.enableConfirms()
            var published: UInt64 = 0
            var lastTag: UInt64?
            while published < UInt64(limit), let taken = try session.take(Topology.deadLetterQueue(of: queue)) {
                var headers = taken.message.headers
                headers[CommandServer.attemptsHeader] = nil
                try session.publish(OutgoingMessage(
                    routingKey: queue, body: taken.message.body,
                    contentType: taken.message.contentType ?? "application/json",
                    correlationId: taken.message.correlationId, messageId: taken.message.messageId,
                    type: taken.message.type, persistent: true, headers: headers, coalescible: false),
                    channel: AMQPSession.confirmChannel)
                published += 1
                lastTag = taken.tag
            }
            guard let lastTag else { return 0 }
            // Unconfirmed copies leave the originals in place (closing gives them back): a command may then be
            // there twice, never lost.
            guard try session.awaitConfirms(upTo: published, timeoutSeconds: timeoutSeconds * 2) else {
                throw AMQPSession.Failure(description: "the broker did not confirm the requeued commands; none was removed")
            }
            try session.ack(tag: lastTag, multiple: true)
            return Int(published)
        }
    }

    /// Deletes every dead letter of `queue`; the number deleted.
    public func purge(_ queue: String) throws(Failure) -> Int {
        try session { session throws(AMQPSession.Failure) in try session.purge(Topology.deadLetterQueue(of: queue)) }
    }

    private func session<T>(_ body: (AMQPSession) throws(AMQPSession.Failure) -> T) throws(Failure) -> T {
        let session = try connected()
        defer { session.close() }
        do {
            return try body(session)
        } catch {
            throw Failure(description: error.description)
        }
    }

    /// The first node of `url` that answers, so that a cluster's lost node does not stop the tool.
    private func connected() throws(Failure) -> AMQPSession {
        var failures: [String] = []
        for node in url.nodes {
            do {
                return try AMQPSession(url: node, generation: 0, timeoutSeconds: timeoutSeconds)
            } catch {
                failures.append(error.description)
            }
        }
        throw Failure(description: failures.joined(separator: "; "))
    }
}
