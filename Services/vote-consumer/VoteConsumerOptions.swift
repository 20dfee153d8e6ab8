import Foundation
import Runtime

/// The command line: `vote-consumer [consume] [--queue NAME] [--forward URL] [--keys vote.#]`
/// or `vote-consumer replay --from DATE [--to DATE] [--class NAME]`. Connections come from the same environment
/// variables as the services (`PARSE_AMQP_URL`, `PARSE_EVENTS_EXCHANGE`).
struct VoteConsumerOptions: Sendable, Equatable {
    enum Mode: Sendable, Equatable { case consume, replay, help }

    var mode: Mode = .consume
    /// Durable, so events wait in it while the consumer is stopped.
    var queue = "vote-consumer"
    var routingKeys = ["vote.#"]
    /// POST each event there (CloudEvents structured mode) instead of printing it; acked after a 2xx.
    var forwardURL: URL?
    var from: Date?
    var to: Date?
    var className: String?
    /// Exit after this many events (tests and one-off checks); nil: run until SIGTERM/SIGINT.
    var limit: Int?

    static let usage = """
        usage: vote-consumer [consume] [--queue NAME] [--keys vote.#,...] [--forward URL] [--limit N]
               vote-consumer replay --from 2026-11-30T14:00:00Z [--to DATE] [--class NAME]
        consume: binds the durable queue NAME (default vote-consumer) to the events exchange with the keys
                 (default vote.#) and prints each event as one JSON line, or POSTs it to URL; acks after that.
        replay:  asks the votes service for the events of the ballots its ledger applied in [from, to) and prints
                 them as the same JSON lines, with the same event ids, in sequence order per object: consumers
                 dedupe them by id.
        environment: PARSE_AMQP_URL, PARSE_EVENTS_EXCHANGE
        """

    init() {}

    init(arguments: [String]) throws {
        var rest = arguments[...]
        if let first = rest.first, !first.hasPrefix("-") {
            switch first {
            case "consume": mode = .consume
            case "replay": mode = .replay
            case "help": mode = .help
            default: throw ConfigurationError("unknown command '\(first)'")
            }
            rest = rest.dropFirst()
        }
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" { mode = .help; continue }
            guard let value = rest.popFirst() else { throw ConfigurationError("\(flag) needs a value") }
            switch flag {
            case "--queue": queue = value
            case "--keys": routingKeys = value.split(separator: ",").map(String.init)
            case "--forward":
                guard let url = URL(string: value), url.scheme?.hasPrefix("http") == true else {
                    throw ConfigurationError("--forward needs an http(s) URL, got '\(value)'")
                }
                forwardURL = url
            case "--from": from = try Self.date(value, flag)
            case "--to": to = try Self.date(value, flag)
            case "--class": className = value
            case "--limit":
                guard let count = Int(value), count > 0 else { throw ConfigurationError("--limit needs a positive number") }
                limit = count
            default: throw ConfigurationError("unknown option \(flag)")
            }
        }
        if mode == .replay && from == nil { throw ConfigurationError("replay needs --from") }
    }

    private static func date(_ text: String, _ flag: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        throw ConfigurationError("\(flag) needs an ISO 8601 date such as 2026-11-30T14:00:00Z, got '\(text)'")
    }
}
