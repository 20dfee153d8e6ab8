import Runtime

/// The command line: `dead-letters list|requeue|purge|count [--queue NAME] [--limit N]`. The broker comes from
/// `PARSE_AMQP_URL`, as for the services.
struct DeadLettersOptions: Sendable, Equatable {
    enum Action: String, Sendable, Equatable { case list, requeue, purge, count, help }

    var action: Action = .help
    /// Command queues (`votes`, not `votes.dead`); every service's when none is named.
    var queues: [String] = []
    var limit = 100

    static let usage = """
        usage: dead-letters count [--queue NAME]
               dead-letters list --queue NAME [--limit N]
               dead-letters requeue --queue NAME [--limit N]
               dead-letters purge --queue NAME
        Commands that failed PARSE_MAX_DELIVERY_ATTEMPTS times, or expired unconsumed, wait in <queue>.dead.
        count:   how many each queue holds (every service's queue without --queue).
        list:    prints the first N (default 100) as JSON lines, leaving them in place.
        requeue: sends the first N back to their queue with fresh attempts (a command may then run once more).
        purge:   deletes all of them.
        environment: PARSE_AMQP_URL
        """

    init(arguments: [String]) throws {
        var rest = arguments[...]
        guard let first = rest.popFirst() else { return }
        guard let action = Action(rawValue: first) else { throw ConfigurationError("unknown command '\(first)'") }
        self.action = action
        while let flag = rest.popFirst() {
            if flag == "--help" || flag == "-h" { self.action = .help; continue }
            guard let value = rest.popFirst() else { throw ConfigurationError("\(flag) needs a value") }
            switch flag {
            case "--queue":
                // `votes.dead` and `votes` name the same thing.
                queues.append(value.hasSuffix(".dead") ? String(value.dropLast(5)) : value)
            case "--limit":
                guard let count = Int(value), count > 0 else { throw ConfigurationError("--limit needs a positive number") }
                limit = count
            default: throw ConfigurationError("unknown option \(flag)")
            }
        }
        if [.list, .requeue, .purge].contains(self.action) && queues.count != 1 {
            throw ConfigurationError("\(action.rawValue) needs one --queue")
        }
    }
}
