import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Storage

/// A writing service's hook points into Cloud Code: before* triggers are asked over request/reply before the write
/// commits; after* triggers are written to the outbox in the write's transaction and relayed after commit. Both
/// first look the class up in the registry, so a class without triggers costs neither a call nor a statement.
public struct CloudTriggers: Sendable {
    public let service: ServiceName
    public let registry: TriggerRegistry
    let runner: any CloudTriggerRunner
    /// Reads the registrations' generation stored in the service's database (`CacheGenerations`), for a request
    /// about to run a trigger before anything of it has checked that generation (`run`); nil: no such read.
    let storedGeneration: (@Sendable () async throws -> Int64?)?

    public init(service: ServiceName, registry: TriggerRegistry, runner: any CloudTriggerRunner,
                storedGeneration: (@Sendable () async throws -> Int64?)? = nil) {
        self.service = service
        self.registry = registry
        self.runner = runner
        self.storedGeneration = storedGeneration
    }

    /// The registry and client for a service, and the background jobs that keep the list current and deliver the
    /// after* triggers.
    /// `pool`: the service's database, where Cloud Code stores the registrations' generation.
    public static func start(_ service: ServiceName, calls: RPCClient, pool: PostgresPool, jobs: inout [BackgroundJob],
                             environment: Environment = Environment()) throws -> CloudTriggers {
        start(configuration: try ServiceConfiguration.fromEnvironment(service, environment), calls: calls, pool: pool,
              jobs: &jobs)
    }

    /// `start` with the service's configuration read already.
    public static func start(configuration: ServiceConfiguration, calls: RPCClient, pool: PostgresPool,
                             jobs: inout [BackgroundJob]) -> CloudTriggers {
        let service = configuration.service
        let logger = Logger(service: service.rawValue, level: configuration.logLevel)
        let runner = CloudTriggerClient(calls: calls)
        let registry = TriggerRegistry(runner: runner, logger: logger)
        let listener = HooksChangedListener(service: service, url: configuration.amqpURL,
                                            exchange: configuration.eventExchange, registry: registry, logger: logger)
        jobs.append(BackgroundJob(name: "cloud trigger registrations") {
            listener.start()
            await registry.maintain { listener.isConnected }
            await listener.stop()
        })
        // The stack's own app's dispatcher takes every app's after* triggers (bound to them all): another app's
        // services add none of their own.
        if AppContext.current == nil {
            let dispatcher = AfterTriggerDispatcher(
                service: service, url: configuration.amqpURL, exchange: configuration.eventExchange, runner: runner,
                maxAttempts: configuration.afterTriggerAttempts, logger: logger)
            jobs.append(BackgroundJob(name: "after triggers") {
                dispatcher.start()
                while !Task.isCancelled { try? await Task.sleep(for: .milliseconds(200)) }
                await dispatcher.stop()
            })
        }
        return CloudTriggers(service: service, registry: registry, runner: runner, storedGeneration: {
            try await CacheGenerations.read(AdvanceCacheGeneration.hooks, on: pool)
        })
    }

    public func triggers(of className: String) async -> Set<TriggerName> {
        await registry.triggers(of: className)
    }

    /// Runs a request's handling so that each transaction it opens first checks, with its first statement, that the
    /// trigger list it decided with is as new as the registrations' generation stored in this service's database
    /// (`CacheGenerations`); a write decided with an older list is rolled back there, the list reloaded and the
    /// handling run again, so a registration answered before the request applies to it. Reads check the same
    /// generation in their own statements (`requireCurrent`).
    ///
    /// The first check that passes settles it for the rest of the handling (`RegistrationsCheck`): a generation
    /// stored after that read belongs to a registration answered after the request came, which it need not see.
    /// So a trigger, which may have effects of its own, never runs twice for one request: `run` makes that first
    /// check itself before it calls one.
    public func withCurrentRegistrations<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await checkingRegistrations(body)
        } catch let stale as StaleTriggerList {
            await registry.refresh(toAtLeast: stale.generation)
        }
        do {
            return try await checkingRegistrations(body)
        } catch is StaleTriggerList {
            throw ParseError(.connectionFailed, "Cloud Code's trigger registrations could not be loaded. Retry later.")
        }
    }

    /// One run of `body`, checked against the list it started with.
    private func checkingRegistrations<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        let registry = self.registry
        let passed = RegistrationsCheck(decidedWith: registry.loadedGeneration)
        let check = TransactionCheck(CacheGenerations.statement(AdvanceCacheGeneration.hooks)) { result in
            try passed.require(result.first?.int("generation").map(Int64.init), registry: registry)
        }
        return try await RegistrationsCheck.$current.withValue(passed) {
            try await TransactionCheck.$current.withValue(check) { try await body() }
        }
    }

    /// Throws `StaleTriggerList` when a statement read a generation (`CacheGenerations.subquery`) newer than the list.
    public func requireCurrent(_ stored: Int64?) throws(StaleTriggerList) {
        guard let passed = RegistrationsCheck.current else { return try registry.requireCurrent(stored) }
        try passed.require(stored, registry: registry)
    }

    /// Runs a before* trigger within the request's remaining time. A refusal is thrown as the client's error.
    public func run(_ trigger: RunTrigger, requestId: String, identity: Identity) async throws -> TriggerResult {
        let remaining = Deadline.current?.remaining ?? Self.defaultTimeout
        // The service stops the request at its deadline; the trigger has to answer a little before that.
        let timeout = remaining - Self.margin
        guard timeout > .zero else { throw TriggerFailure.noTimeLeft(trigger.key) }
        // A stale list found after the trigger ran would run the handling, and the trigger, again.
        if let passed = RegistrationsCheck.current, !passed.hasPassed, let storedGeneration {
            try passed.require(try await storedGeneration(), registry: registry)
        }
        return try await runner.run(trigger, requestId: requestId, identity: identity, timeout: timeout)
    }

    /// Adds an after* trigger call to the outbox, inside the caller's transaction.
    public func enqueue(_ trigger: RunTrigger, requestId: String, identity: Identity,
                        on connection: PostgresConnection) async throws {
        try await TriggerOutbox.add(trigger, service: service, requestId: requestId, identity: identity, on: connection)
    }

    static let defaultTimeout = Duration.seconds(10)
    static let margin = Duration.milliseconds(100)
}
