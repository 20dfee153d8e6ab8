import Foundation
import Messaging
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
await PushAdapter(configuration: configuration, logger: logger).run()
logger.info("stopped")
