import Foundation
import Messaging
import Runtime

/// The entry point: parses the command line and runs the chosen mode; returns the exit status.
enum VoteConsumerCommand {
    static func main(_ arguments: [String]) async -> Int32 {
        let options: VoteConsumerOptions
        do {
            options = try VoteConsumerOptions(arguments: arguments)
        } catch {
            FileHandle.standardError.write(Data("vote-consumer: \(error)\n\(VoteConsumerOptions.usage)\n".utf8))
            return 2
        }
        let env = Environment()
        let logger = Logger(service: "vote-consumer", level: LogLevel(name: env.string("PARSE_LOG_LEVEL", default: "info")) ?? .info)
        do {
            switch options.mode {
            case .help:
                print(VoteConsumerOptions.usage)
            case .consume, .replay:
                let url = try AMQPURL(env.string("PARSE_AMQP_URL", default: "amqp://guest:guest@127.0.0.1:15682/"))
                let exchange = env.string("PARSE_EVENTS_EXCHANGE", default: "parse.events")
                if options.mode == .replay {
                    try await LedgerReplay(options: options, url: url, exchange: exchange, logger: logger).run()
                } else {
                    try await EventConsumer(options: options, url: url, exchange: exchange, logger: logger).run()
                }
            }
            return 0
        } catch {
            logger.error("vote-consumer failed", ["error": "\(error)"])
            return 1
        }
    }
}
