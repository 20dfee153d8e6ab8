import Contracts
import Foundation
import Messaging
import MetricsHTTP
import Runtime

/// Runs `live`: the WebSocket loop on its own port, one private event queue per process (each replica serves its
/// own connections and sees every event), and the calls it makes to auth and posts.
public enum LiveService {
    public static func main(arguments: [String] = CommandLine.arguments) async -> Int32 {
        let configuration: LiveConfiguration
        do {
            configuration = try LiveConfiguration.fromEnvironment()
        } catch {
            Logger(service: "live").error("invalid configuration", ["error": "\(error)"])
            return 2
        }
        let logger = Logger(service: "live", level: configuration.logLevel)
        ScriptLogTap.shared.keep(configuration.keptLogLevel)
        if arguments.contains("--healthcheck") { return HealthProbe.run(port: configuration.port) ? 0 : 1 }
        let metrics: MetricsServer?
        do {
            metrics = try MetricsServer.fromEnvironment(logger: logger)
        } catch {
            logger.error("invalid configuration", ["error": "\(error)"])
            return 2
        }
        SocketLoop.raiseDescriptorLimit()
        let calls = RPCClient(url: configuration.amqpURL, name: "live-calls", eventExchange: configuration.eventExchange,
                              logger: logger)
        calls.start()
        let scriptLogs = ScriptLogShipper(client: calls, logger: logger)
        scriptLogs.start()
        let loop = SocketLoop(limits: configuration.limits, logger: logger)
        let hub = LiveQueryHub(loop: loop, backend: MessagingLiveBackend(client: calls, timeout: configuration.requestTimeout),
                               keys: configuration.keys, limits: configuration.requestComplexity,
                               graphQLLimits: configuration.graphQLLimits, logger: logger)
        let hubs = LiveHubs(stack: hub, loop: loop, calls: calls, configuration: configuration, logger: logger)
        loop.delegate = hubs
        let events = eventConnection(configuration, hubs: hubs, logger: logger)
        do {
            try loop.start(host: configuration.host, port: configuration.port)
        } catch {
            logger.error("cannot listen", ["error": "\(error)"])
            return 1
        }
        events.start()
        hub.onHub { hub.reloadTriggers() }
        logger.info("listening", ["host": configuration.host, "port": "\(loop.port)"])
        let signal = await ShutdownSignal.wait()
        logger.info("stopping", ["signal": signal])
        loop.stop()
        await loop.join()
        await events.stop()
        await hubs.stop()
        await scriptLogs.stop()
        await calls.stop()
        await metrics?.stop()
        logger.info("stopped")
        return 0
    }

    /// Events are auto-acknowledged: a live event is worth sending only now, and a queue of this process's own
    /// disappears with it, so there is nothing to redeliver to.
    static func eventConnection(_ configuration: LiveConfiguration, hubs: LiveHubs, logger: Logger) -> AMQPConnection {
        let queue = "live.events.\(UUID().uuidString.lowercased())"
        var topology = Topology()
        topology.addPrivateEventQueue(queue, exchange: configuration.eventExchange,
                                      routingKeys: AppContext.everyApp(LiveEvent.routingKeys) + [AppDeleted.routingKey])
        let consumer = AMQPConnection.Consumer(queue: queue, autoAck: true) { delivery in
            hubs.receive(routingKey: delivery.routingKey, body: delivery.body)
        }
        return AMQPConnection(url: configuration.amqpURL,
                              options: .init(name: "live-events", topology: topology, consumers: [consumer], prefetch: 1_024,
                                             reconnected: { hubs.eventsResumed() }),
                              logger: logger)
    }
}
