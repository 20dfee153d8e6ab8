import Contracts
import Foundation
import ParseWire
import Runtime
import Metrics
import Synchronization

/// Consumes a service's command queue: runs the handler, publishes the reply, and only then acks, so a command
/// whose work was not committed is delivered again. Every command ends in an answer: a Parse error as it is, a
/// deterministic failure as code 1 at once, a transient one (`FailureKind`) retried here while the caller waits
/// and then answered 503. Competing consumers: run as many replicas as needed.
public final class CommandServer: Sendable {
    public struct Options: Sendable {
        public var prefetch: Int
        public var maxAttempts: Int
        public var eventExchange: String
        /// Where the commands in progress are noted, so one that crashes the process is not run again; nil: none.
        public var crashJournal: CrashJournal?
        /// How long a command whose caller set no deadline is retried here on transient faults, per delivery.
        public var retryBudgetWithoutDeadline: Duration
        /// Commands are handled on the thread of the connection they arrive on (`ConnectionExecutor`) rather than
        /// on the shared pool: fewer hand-offs, one core. A command over `largestOnConnectionThread` bytes still goes
        /// to the pool, so that decoding it holds up no one else.
        public var handlesOnConnectionThread: Bool

        public init(prefetch: Int = 32, maxAttempts: Int = 5, eventExchange: String = "parse.events",
                    crashJournal: CrashJournal? = nil, retryBudgetWithoutDeadline: Duration = .seconds(10),
                    handlesOnConnectionThread: Bool = true) {
            self.prefetch = prefetch
            self.maxAttempts = maxAttempts
            self.eventExchange = eventExchange
            self.crashJournal = crashJournal
            self.retryBudgetWithoutDeadline = retryBudgetWithoutDeadline
            self.handlesOnConnectionThread = handlesOnConnectionThread
        }
    }

    static let attemptsHeader = "x-attempts"
    /// The largest command handled on the connection's thread (the gateway's bound for requests, likewise).
    static let largestOnConnectionThread = 64 * 1024

    private let service: ServiceName
    private let queue: String
    private let router: CommandRouter
    private let options: Options
    private let logger: Logger
    /// The commands being handled, one task each.
    private let handling = OwnedTasks("commands")
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
        await handling.waitUntilIdle(upTo: grace)
        await connection.stop()
        // What is still running can no longer answer or ack: cancelled, and waited for, so nothing of it outlives
        // the server.
        await handling.stop()
    }

    private func received(_ delivery: Delivery) {
        MessagingMetrics.commandsInFlight.increment()
        let large = delivery.body.count >= MemoryTrim.largeBytes
        // Every line logged and every call made while handling it belongs to the caller's trace.
        let trace = delivery.headers[TraceContext.header].flatMap(TraceContext.init(traceparent:))
        let message = Envelope.context(of: delivery)
        let app = delivery.headers[AppContext.header]
        let onConnection = options.handlesOnConnectionThread && delivery.body.count <= Self.largestOnConnectionThread
        let started = handling.spawn(on: onConnection ? connection.executor : nil) { [self] in
            await TraceContext.$current.withValue(trace) {
                await AppContext.$current.withValue(app) {
                    await MessageContext.$current.withValue(message) { await handle(delivery) }
                }
            }
            MessagingMetrics.commandsInFlight.decrement()
            if large { MemoryTrim.afterLargeWork() }
        }
        // Stopping: left unacked, for another replica.
        if !started { MessagingMetrics.commandsInFlight.decrement() }
    }

    private func handle(_ delivery: Delivery) async {
        let type = delivery.type ?? "unknown"
        let log = logger.with("request.id", Envelope.requestId(of: delivery) ?? "-").with("msg.type", type)
        guard let route = router.route(type) else {
            log.warning("unknown command type")
            unknownSeries.count(.unknownType)
            settle(delivery, replying: failure(ParseError(.commandUnavailable, "The \(service.rawValue) service does not handle \(type) commands yet.")))
            return
        }
        let metrics = series[type] ?? unknownSeries
        let journal = options.crashJournal
        let key = CrashJournal.key(type: delivery.type, messageId: delivery.messageId, correlationId: delivery.correlationId)
        var suspect = false
        if delivery.redelivered, let journal {
            switch journal.verdict(for: key) {
            case .poison:
                log.error("command crashed this service before; dead-lettered without running it")
                metrics.count(.deadLetter)
                connection.reject(delivery, requeue: false)
                Self.reply(to: delivery, body: failure(.internalError)).map(connection.publish)
                return
            case .suspect: suspect = true
            case .unknown: break
            }
        }
        let slot = journal?.begin(key, suspect: suspect)
        defer { journal?.end(slot) }
        let started = ContinuousClock.now
        // A command without a reply address has no caller waiting (an operator requeued it): the deadline its
        // first caller set long ago does not apply.
        let deadline = delivery.replyTo == nil ? nil : CommandDeadline.forHandling(delivery.headers)
        let connection = self.connection
        let early = delivery.replyTo == nil ? nil : EarlyAnswer { body in
            Self.reply(to: delivery, body: body).map(connection.publish)
        }
        do {
            if let deadline, deadline.hasPassed { throw DeadlineExceeded("the command") }
            // The trace only feeds the debug line: without it, no trace is made or carried.
            let calls = log.level == .debug ? CommandTrace() : nil
            let retry = TransientRetry(deadline: deadline ?? .after(options.retryBudgetWithoutDeadline))
            let answer = try await CommandTrace.$current.withValue(calls) {
                try await Deadline.$current.withValue(deadline) {
                    try await EarlyAnswer.$current.withValue(early) {
                        try await retry.run({ try await route(delivery, log) }, retrying: { error, attempt in
                            metrics.count(.retry)
                            log.warning("command failed on a transient fault; trying again",
                                        ["attempt": String(attempt), "error": "\(error)"])
                        })
                    }
                }
            }
            // Counted before the answer leaves, so a caller that reads the metrics next finds its command there.
            metrics.count(answer.refused ? .refused : .ok, since: started)
            settle(delivery, replying: answer.body, headers: answer.headers, unless: early)
            log.debug("handled", Self.handledFields(delivery, started: started, calls: calls?.summary))
        } catch let error as DeadlineExceeded {
            // Its caller has stopped waiting (or is about to): running it again would only hold resources.
            log.warning("stopped at the caller's deadline", ["error": "\(error)",
                                                             "duration_ms": started.millisecondsElapsedText])
            metrics.count(.timeout, since: started)
            settle(delivery, replying: failure(Self.timedOut(error)), unless: early)
        } catch {
            switch FailureKind.of(error) {
            case .transient where delivery.replyTo == nil:
                // Nobody waits for an answer (an operator requeued it): kept for later rather than dropped.
                await retryLater(delivery, error: error, log: log, metrics: metrics, started: started)
            case .transient:
                log.warning("command failed on a transient fault until its deadline", ["error": "\(error)",
                                                                                     "duration_ms": started.millisecondsElapsedText])
                metrics.count(.unavailable, since: started)
                settle(delivery, replying: failure(Self.unavailable), unless: early)
            case .ambiguous:
                log.error("command's outcome unknown", ["error": "\(error)", "duration_ms": started.millisecondsElapsedText])
                metrics.count(.failed, since: started)
                settle(delivery, replying: failure(Self.outcomeUnknown), unless: early)
            case .deterministic:
                // Running it again would fail the same way: answered now, with the details in the log only.
                log.error("command failed", ["error": "\(error)", "duration_ms": started.millisecondsElapsedText])
                metrics.count(.failed, since: started)
                settle(delivery, replying: failure((error as? MessagingError)?.parseError ?? .internalError), unless: early)
            }
        }
    }

    static func timedOut(_ error: DeadlineExceeded) -> ParseError {
        ParseError(.timeout, "Request timed out: \(error.description).")
    }

    /// What the caller of a command that met only transient faults until its deadline gets (503 at the gateway,
    /// with `Retry-After`).
    static let unavailable = ParseError(.connectionFailed,
                                        "Service unavailable: a database or service it needs is not reachable. Retry later.")

    /// What the caller of a command whose work may or may not have been applied gets (504 at the gateway, as for a
    /// write whose answer did not come in time).
    static let outcomeUnknown = ParseError(.timeout, "The connection to the database was lost while the write "
                                           + "committed: it may have been applied. Read it back before sending it again.")

    /// A command without a reply address that kept failing on transient faults goes back to its queue, behind a
    /// pause, `maxAttempts` times in all; then to `<queue>.dead`, for an operator.
    private func retryLater(_ delivery: Delivery, error: any Error, log: Logger, metrics: CommandSeries,
                            started: ContinuousClock.Instant) async {
        let attempts = DeliveryAttempts.current(delivery.headers, key: Self.attemptsHeader, limit: options.maxAttempts)
        guard attempts < options.maxAttempts else {
            log.error("command failed too often; dead-lettered", ["attempts": String(attempts), "error": "\(error)"])
            metrics.count(.deadLetter, since: started)
            connection.reject(delivery, requeue: false)
            return
        }
        log.warning("command failed; sent back to its queue", ["attempt": String(attempts), "error": "\(error)"])
        metrics.count(.retry, since: started)
        try? await Task.sleep(for: .milliseconds(100 * attempts))
        var headers = delivery.headers
        headers[Self.attemptsHeader] = String(attempts)
        connection.publish(OutgoingMessage(
            routingKey: queue, body: delivery.body, correlationId: delivery.correlationId,
            replyTo: delivery.replyTo, messageId: delivery.messageId, type: delivery.type, persistent: true,
            headers: headers))
        connection.ack(delivery)
    }

    /// The "handled" line's fields: how long it took and what it called, what caused it and how long it waited.
    private static func handledFields(_ delivery: Delivery, started: ContinuousClock.Instant, calls: String?) -> [String: String] {
        var fields = ["duration_ms": started.millisecondsElapsedText, "calls": calls ?? "-"]
        if let cause = delivery.headers[Envelope.causationHeader] { fields["causation.id"] = cause }
        if let waited = Envelope.waitedMilliseconds(delivery) { fields["queued_ms"] = String(waited) }
        return fields
    }

    private func failure(_ error: ParseError) -> [UInt8] {
        (try? CommandRouter.failure(error)) ?? []
    }

    /// Acks a handled command and sends its answer, queued together. The ack goes before the reply: see
    /// `MessageCoalescer.coalesced` (a reply can cost the connection).
    /// `unless`: when the handler gave its answer early, only the ack goes.
    private func settle(_ delivery: Delivery, replying body: [UInt8], headers: [String: String] = [:],
                        unless early: EarlyAnswer? = nil) {
        if early?.wasGiven != true, let reply = Self.reply(to: delivery, body: body, headers: headers) {
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
