import Contracts
import Foundation
import ParseWire
import Runtime
import Metrics
import Synchronization

/// Consumes a service's command queue: runs the handler, publishes the reply, and only then acks, so a command
/// whose work was not committed is delivered again. A command that keeps failing is retried `maxAttempts` times
/// and then dead-lettered to `<queue>.dead`, never lost. Competing consumers: run as many replicas as needed.
public final class CommandServer: Sendable {
    public struct Options: Sendable {
        public var prefetch: Int
        public var maxAttempts: Int
        public var eventExchange: String

        public init(prefetch: Int = 32, maxAttempts: Int = 5, eventExchange: String = "parse.events") {
            self.prefetch = prefetch
            self.maxAttempts = maxAttempts
            self.eventExchange = eventExchange
        }
    }

    static let attemptsHeader = "x-attempts"

    private let service: ServiceName
    private let queue: String
    private let router: CommandRouter
    private let options: Options
    private let logger: Logger
    private let inFlight = Atomic<Int>(0)
    private let connectionBox = Mutex<AMQPConnection?>(nil)
    /// One per type the router knows, and one for the rest (`unknown`, so a sender cannot add series).
    private let series: [String: CommandSeries]
    private let unknownSeries = CommandSeries(type: "unknown")

    /// `queue` defaults to the service's command queue; tests give queues of their own.
    public init(service: ServiceName, queue: String? = nil, url: AMQPURL, router: CommandRouter,
                options: Options = Options(), logger: Logger) {
        self.service = service
        let queue = queue ?? service.commandQueue
        self.queue = queue
        self.router = router
        series = Dictionary(uniqueKeysWithValues: router.types.map { ($0, CommandSeries(type: $0)) })
        self.options = options
        self.logger = logger
        let topology = Topology.commandQueues([queue], eventExchange: options.eventExchange)
        let consumer = AMQPConnection.Consumer(queue: queue) { [weak self] delivery in
            self?.received(delivery)
        }
        let connection = AMQPConnection(
            url: url,
            options: .init(name: "\(service.rawValue)-commands", topology: topology, consumers: [consumer],
                           prefetch: options.prefetch, batchesMessages: true),
            logger: logger)
        connectionBox.withLock { $0 = connection }
    }

    private var connection: AMQPConnection { connectionBox.withLock { $0! } }

    public func start() { connection.start() }
    public var isConnected: Bool { connection.isConnected }
    var receivedBatches: Int { connection.receivedBatches }

    /// Graceful stop: take no new commands, let the ones in progress finish (up to `grace`), then disconnect.
    /// Commands still unfinished then are not acked and go to another replica.
    public func drain(grace: Duration) async {
        await connection.cancelConsumers()
        let deadline = ContinuousClock.now + grace
        while inFlight.load(ordering: .acquiring) > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        await connection.stop()
    }

    private func received(_ delivery: Delivery) {
        inFlight.add(1, ordering: .relaxed)
        MessagingMetrics.commandsInFlight.increment()
        Task {
            await handle(delivery)
            MessagingMetrics.commandsInFlight.decrement()
            inFlight.subtract(1, ordering: .releasing)
        }
    }

    private func handle(_ delivery: Delivery) async {
        let type = delivery.type ?? "unknown"
        let log = logger.with("request.id", delivery.messageId ?? "-").with("msg.type", type)
        guard let route = router.route(type) else {
            log.warning("unknown command type")
            unknownSeries.count(.unknownType)
            settle(delivery, replying: failure(ParseError(.commandUnavailable, "The \(service.rawValue) service does not handle \(type) commands yet.")))
            return
        }
        let metrics = series[type] ?? unknownSeries
        let started = ContinuousClock.now
        let deadline = CommandDeadline.forHandling(delivery.headers)
        do {
            if let deadline, deadline.hasPassed { throw DeadlineExceeded("the command") }
            // The trace only feeds the debug line: without it, no trace is made or carried.
            let calls = log.level == .debug ? CommandTrace() : nil
            let answer = try await CommandTrace.$current.withValue(calls) {
                try await Deadline.$current.withValue(deadline) { try await route(delivery, log) }
            }
            // Counted before the answer leaves, so a caller that reads the metrics next finds its command there.
            metrics.count(answer.refused ? .refused : .ok, since: started)
            settle(delivery, replying: answer.body, headers: answer.headers)
            log.debug("handled", ["duration_ms": started.millisecondsElapsedText, "calls": calls?.summary ?? "-"])
        } catch let error as DeadlineExceeded {
            // Its caller has stopped waiting (or is about to): running it again would only hold resources.
            log.warning("stopped at the caller's deadline", ["error": "\(error)",
                                                             "duration_ms": started.millisecondsElapsedText])
            metrics.count(.timeout, since: started)
            settle(delivery, replying: failure(Self.timedOut(error)))
        } catch {
            metrics.count((Int(delivery.headers[Self.attemptsHeader] ?? "") ?? 0) + 1 < options.maxAttempts
                          ? .retry : .deadLetter, since: started)
            await retryOrDeadLetter(delivery, error: error, log: log)
        }
    }

    static func timedOut(_ error: DeadlineExceeded) -> ParseError {
        ParseError(.timeout, "Request timed out: \(error.description).")
    }

    private func retryOrDeadLetter(_ delivery: Delivery, error: any Error, log: Logger) async {
        let attempts = (Int(delivery.headers[Self.attemptsHeader] ?? "") ?? 0) + 1
        if attempts < options.maxAttempts {
            log.warning("command failed; retrying", ["attempt": String(attempts), "error": "\(error)"])
            try? await Task.sleep(for: .milliseconds(100 * attempts))
            var headers = delivery.headers
            headers[Self.attemptsHeader] = String(attempts)
            connection.publish(OutgoingMessage(
                routingKey: queue, body: delivery.body, correlationId: delivery.correlationId,
                replyTo: delivery.replyTo, messageId: delivery.messageId, type: delivery.type, persistent: true,
                headers: headers))
            connection.ack(delivery)
        } else {
            log.error("command failed too often; dead-lettered", ["attempts": String(attempts), "error": "\(error)"])
            connection.reject(delivery, requeue: false)
            Self.reply(to: delivery, body: failure(.internalError)).map(connection.publish)
        }
    }

    private func failure(_ error: ParseError) -> [UInt8] {
        (try? CommandRouter.failure(error)) ?? []
    }

    /// Acks a handled command and sends its answer, queued together. The ack goes before the reply: see
    /// `MessageCoalescer.coalesced` (a reply can cost the connection).
    private func settle(_ delivery: Delivery, replying body: [UInt8], headers: [String: String] = [:]) {
        if let reply = Self.reply(to: delivery, body: body, headers: headers) {
            connection.ack(delivery, thenPublish: reply)
        } else {
            connection.ack(delivery)
        }
    }

    /// The answer to `delivery`, for its caller's reply address; nil when the caller wants none.
    private static func reply(to delivery: Delivery, body: [UInt8], headers: [String: String] = [:]) -> OutgoingMessage? {
        delivery.replyTo.map {
            OutgoingMessage(routingKey: $0, body: body, correlationId: delivery.correlationId, headers: headers)
        }
    }
}
