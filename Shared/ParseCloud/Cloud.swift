import Contracts
import Messaging
import ParseWire
import Runtime
import Synchronization

/// A Cloud Code worker: define functions, jobs and triggers, then `run()`. It registers them with the `cloud`
/// service and serves the calls that arrive on its queue until SIGTERM or SIGINT; processes sharing a queue are
/// competing consumers, so run as many as the load needs.
///
/// ```swift
/// let cloud = Cloud(try .fromEnvironment())
/// cloud.define("averageVotes") { request in ... }
/// cloud.beforeSave("Cat") { request in ... }
/// try await cloud.run()
/// ```
public final class Cloud: Sendable {
    public let configuration: CloudWorkerConfiguration
    private let handlers = Mutex(CloudHandlers())
    private let logger: Logger

    public init(_ configuration: CloudWorkerConfiguration, logLevel: LogLevel = .info) {
        self.configuration = configuration
        logger = Logger(service: "cloud-worker", level: logLevel, metadata: ["instance": configuration.instance])
    }

    /// `Parse.Cloud.define`: the handler's value is the function's `result`.
    public func define(_ name: String, _ handler: @escaping @Sendable (FunctionRequest) async throws -> JSONValue) {
        handlers.withLock { $0.functions[name] = { FunctionResponse(try await handler($0)) } }
    }

    /// `Parse.Cloud.define` with parse-server 9's `res.status()` and `res.header()`: the handler chooses the HTTP
    /// status and headers of its answer beside its `result`.
    public func define(_ name: String, _ handler: @escaping @Sendable (FunctionRequest) async throws -> FunctionResponse) {
        handlers.withLock { $0.functions[name] = handler }
    }

    /// `Parse.Cloud.job`: a string value becomes the job status's `message`.
    public func job(_ name: String, _ handler: @escaping @Sendable (JobRequest) async throws -> JSONValue?) {
        handlers.withLock { $0.jobs[name] = handler }
    }

    /// Any trigger by its name. A beforeSave's value is the object to store (the fields it changed are written),
    /// nil keeps the object as it is; beforeFind's a query (`{"where": ...}`), afterFind's the objects; throwing
    /// refuses the write or the query.
    public func trigger(_ name: TriggerName, _ className: String,
                        _ handler: @escaping @Sendable (TriggerRequest) async throws -> JSONValue?) {
        handlers.withLock { $0.triggers[TriggerKey(className: className, triggerName: name)] = handler }
    }

    public func beforeSave(_ className: String, _ handler: @escaping @Sendable (TriggerRequest) async throws -> JSONValue?) {
        trigger(.beforeSave, className, handler)
    }

    public func afterSave(_ className: String, _ handler: @escaping @Sendable (TriggerRequest) async throws -> Void) {
        trigger(.afterSave, className) { try await handler($0); return nil }
    }

    public func beforeDelete(_ className: String, _ handler: @escaping @Sendable (TriggerRequest) async throws -> Void) {
        trigger(.beforeDelete, className) { try await handler($0); return nil }
    }

    public func afterDelete(_ className: String, _ handler: @escaping @Sendable (TriggerRequest) async throws -> Void) {
        trigger(.afterDelete, className) { try await handler($0); return nil }
    }

    public func beforeFind(_ className: String, _ handler: @escaping @Sendable (TriggerRequest) async throws -> JSONValue?) {
        trigger(.beforeFind, className, handler)
    }

    public func afterFind(_ className: String, _ handler: @escaping @Sendable (TriggerRequest) async throws -> JSONValue?) {
        trigger(.afterFind, className, handler)
    }

    /// Registers with `cloud` (retrying until it answers), serves the queue, and returns after SIGTERM/SIGINT once
    /// the calls in progress are answered.
    public func run() async throws {
        let url = try AMQPURL(configuration.amqpURL)
        let handlers = handlers.withLock { $0 }
        let clients = ClientFactory(configuration: configuration)
        var router = CommandRouter()
        router.register(CloudWorkerCall.type, CloudWorkerCall.self) { command, log in
            await handlers.answer(command.payload, clients: clients, log: log)
        }
        ScriptLogTap.shared.keep(configuration.keptLogLevel)
        // The app's own functions may block or run long: they keep to the shared pool, off the connection's thread.
        let server = CommandServer(service: .cloud, queue: configuration.queue, url: url, router: router,
                                   options: .init(prefetch: configuration.prefetch, eventExchange: configuration.eventExchange,
                                                  handlesOnConnectionThread: false),
                                   logger: logger)
        server.start()
        let calls = RPCClient(url: url, name: "cloud-worker-calls", eventExchange: configuration.eventExchange, logger: logger)
        calls.start()
        let scriptLogs = ScriptLogShipper(client: calls, logger: logger)
        scriptLogs.start()
        let registration = handlers.registration(queue: configuration.queue)
        // Registering goes on until cloud answers or the signal comes.
        let signal = await ShutdownSignal.wait(whileRunning: [{ [logger] in
            var attempt = 0
            while !Task.isCancelled {
                do {
                    let _: Empty = try await calls.send(RegisterCloudWorker.type, registration, to: .cloud,
                                                        requestId: "register-\(TimeOrderedUUID.string())",
                                                        identity: .master, timeout: .seconds(5))
                    logger.info("registered with cloud", ["queue": registration.queue,
                                                          "functions": registration.functions.joined(separator: ","),
                                                          "jobs": registration.jobs.joined(separator: ","),
                                                          "triggers": "\(registration.triggers.count)"])
                    return
                } catch {
                    attempt += 1
                    if attempt == 1 || attempt % 10 == 0 {
                        logger.warning("cloud not reachable yet; retrying", ["error": "\(error)"])
                    }
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
        }])
        logger.info("stopping", ["signal": signal])
        await server.drain(grace: .seconds(10))
        await scriptLogs.stop()
        await calls.stop()
        logger.info("stopped")
    }
}
