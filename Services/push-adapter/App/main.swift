import Foundation
import Messaging
import MetricsHTTP
import PushAdapterCore
import Runtime

let configuration: PushAdapterConfiguration
do {
    configuration = try PushAdapterConfiguration.fromEnvironment()
} catch {
    Logger(service: "push-adapter").error("invalid configuration", ["error": "\(error)"])
    exit(2)
}
let logger = Logger(service: "push-adapter", level: configuration.logLevel)
if CommandLine.arguments.contains("--healthcheck") {
    exit(await PushAdapter.brokerReachable(configuration, logger: logger) ? 0 : 1)
}
let metrics: MetricsServer?
do {
    metrics = try MetricsServer.fromEnvironment(logger: logger)
} catch {
    logger.error("invalid configuration", ["error": "\(error)"])
    exit(2)
}
await PushAdapter(configuration: configuration, logger: logger).run()
await metrics?.stop()
logger.info("stopped")
