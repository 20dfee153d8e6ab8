import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime

/// Runs one `dead-letters` command; returns the exit status (0 done, 1 the broker failed, 2 bad usage).
enum DeadLettersCommand {
    static func main(_ arguments: [String], environment: Environment = Environment()) -> Int32 {
        let options: DeadLettersOptions
        let url: AMQPURL
        do {
            options = try DeadLettersOptions(arguments: arguments)
            url = try AMQPURL(environment.string("PARSE_AMQP_URL", default: "amqp://guest:guest@127.0.0.1:15682/"))
        } catch {
            FileHandle.standardError.write(Data("dead-letters: \(error)\n\(DeadLettersOptions.usage)\n".utf8))
            return 2
        }
        let queues = DeadLetterQueues(url: url)
        do {
            switch options.action {
            case .help:
                print(DeadLettersOptions.usage)
            case .count:
                let names = options.queues.isEmpty ? ServiceName.allCases.map(\.commandQueue) : options.queues
                let counts = try queues.counts(names)
                print(JSONValue.object(counts.mapValues { .number(Double($0)) }).compactText)
            case .list:
                for letter in try queues.list(options.queues[0], limit: options.limit) { print(line(letter)) }
            case .requeue:
                let count = try queues.requeue(options.queues[0], limit: options.limit)
                print(#"{"requeued":\#(count)}"#)
            case .purge:
                let count = try queues.purge(options.queues[0])
                print(#"{"purged":\#(count)}"#)
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("dead-letters: \(error)\n".utf8))
            return 1
        }
    }

    /// One dead letter as a JSON line: its description, and its body as JSON when it is JSON (base64 otherwise).
    static func line(_ letter: DeadLetter) -> String {
        var fields: [String: JSONValue] = ["headers": .object(letter.headers.mapValues { .string($0) })]
        func set(_ key: String, _ value: String?) { if let value { fields[key] = .string(value) } }
        set("type", letter.type)
        set("messageId", letter.messageId)
        set("contentType", letter.contentType)
        set("reason", letter.reason)
        set("queue", letter.fromQueue)
        if letter.contentType == "application/json", let body = JSONValue.parse(letter.body) {
            fields["body"] = body
        } else {
            fields["bodyBase64"] = .string(Data(letter.body).base64EncodedString())
        }
        return JSONValue.object(fields).compactText
    }
}
