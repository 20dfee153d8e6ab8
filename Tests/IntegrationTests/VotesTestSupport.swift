import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Votes as the cats app casts them, and looks into the ledger (`parse_votes`) and the counters' applied ballots
/// (`parse_posts`) with psql, to check what the HTTP answers cannot show.
enum VotesAPI {
    static func increment(_ className: String, _ id: String, amount: Double = 1, field: String = "votes",
                          requestId: String? = nil, token: String? = nil, extra: [String: Any] = [:]) async throws -> Reply {
        var body: [String: Any] = [field: ["__op": "Increment", "amount": amount]]
        body.merge(extra) { $1 }
        return try await put(className, id, body, requestId: requestId, token: token)
    }

    static func put(_ className: String, _ id: String, _ body: [String: Any], requestId: String? = nil,
                    token: String? = nil) async throws -> Reply {
        var headers = HTTP.appHeaders
        headers["Content-Type"] = "application/json"
        if let requestId { headers["X-Parse-Request-Id"] = requestId }
        if let token { headers["X-Parse-Session-Token"] = token }
        return try await HTTP.send("PUT", "/classes/\(className)/\(id)", headers: headers,
                                   body: try JSONSerialization.data(withJSONObject: body))
    }

    static func count(_ className: String, _ id: String, field: String = "votes") async throws -> Double? {
        let reply = try await PostsHTTP.send("GET", "/classes/\(className)/\(id)", master: true)
        return (reply.json?[field] as? NSNumber)?.doubleValue
    }

    /// One SQL query's rows (unaligned, `|`-separated) in the service's database.
    static func sql(_ database: String, _ query: String) throws -> [String] {
        let command = "\(psql) '\(try url(database))' -X -q -t -A -c \"\(query)\""
        guard let pipe = popen(command, "r") else { throw PostsTestError(description: "cannot run psql") }
        var output = ""
        var buffer = [CChar](repeating: 0, count: 4096)
        while fgets(&buffer, Int32(buffer.count), pipe) != nil {
            output += String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        guard pclose(pipe) == 0 else { throw PostsTestError(description: "psql failed: \(query)") }
        return output.split(separator: "\n").map(String.init)
    }

    static let psql = FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/psql")
        ? "/usr/lib/postgresql/15/bin/psql" : "psql"

    /// The connection URL of one of the stack's databases.
    static func url(_ database: String) throws -> String {
        guard let scratch = TestStack.environment["PARSE_TEST_DATABASE_URL"],
              let slash = scratch.range(of: "/", options: .backwards) else {
            throw PostsTestError(description: "PARSE_TEST_DATABASE_URL is not set")
        }
        return scratch[..<slash.lowerBound] + "/" + database
    }

    /// Waits (at most 60 s) until no ballot of the class is pending and every event left the outbox (the votes
    /// service's recovery completes what a fault interrupted); gives the counts it saw last.
    static func waitUntilSettled(_ className: String) async throws -> (pending: Int, unpublished: Int) {
        let deadline = ContinuousClock.now + .seconds(60)
        var pending = -1, unpublished = -1
        while ContinuousClock.now < deadline {
            pending = Int(try sql("parse_votes", "SELECT count(*) FROM ballots WHERE class_name = '\(className)' AND state = 'pending'").first ?? "") ?? -1
            unpublished = Int(try sql("parse_votes", "SELECT count(*) FROM outbox WHERE published_at IS NULL").first ?? "") ?? -1
            if pending == 0 && unpublished == 0 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        return (pending, unpublished)
    }

    /// The request ids of the class's applied ballots, and each object's ledger and counter.
    static func outcome(_ className: String, _ ids: [String]) async throws
        -> (applied: Set<String>, ledgers: [String: Ledger], counters: [String: Double]) {
        let applied = Set(try sql("parse_votes", "SELECT request_id FROM ballots WHERE class_name = '\(className)' AND state = 'applied'"))
        var ledgers: [String: Ledger] = [:]
        var counters: [String: Double] = [:]
        for id in ids {
            ledgers[id] = try await ledger(className, id)
            counters[id] = try await count(className, id) ?? -1
        }
        return (applied, ledgers, counters)
    }

    /// Waits (at most 10 s) until the ledger has marked every ballot of the object: a vote is answered as soon as
    /// `posts` applied it, and its mark in the ledger commits just after.
    static func settled(_ className: String, _ id: String) async throws {
        for _ in 0..<200 {
            let pending = try sql("parse_votes", "SELECT count(*) FROM ballots WHERE class_name = '\(className)' AND object_id = '\(id)' AND state = 'pending'")
            if pending.first == "0" { return }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// The ledger's view of one object, once it marked every ballot of it: applied ballots, the sum of their amounts, their sequences in order, how
    /// many distinct event ids they have, and how many of those events are still in the outbox (the votes service
    /// deletes an event from it once the broker confirmed it).
    struct Ledger {
        var applied: Int
        var sum: Double
        var sequences: [Int]
        var eventIds: Int
        var outboxEvents: Int
    }

    static func ledger(_ className: String, _ id: String) async throws -> Ledger {
        try await settled(className, id)
        let filter = "class_name = '\(className)' AND object_id = '\(id)' AND state = 'applied'"
        let summary = try sql("parse_votes", "SELECT count(*), COALESCE(sum(amount), 0), count(DISTINCT event_id) FROM ballots WHERE \(filter)")
            .first?.split(separator: "|").map(String.init) ?? []
        let sequences = try sql("parse_votes", "SELECT sequence FROM ballots WHERE \(filter) ORDER BY sequence").compactMap { Int($0) }
        let outbox = try sql("parse_votes", "SELECT count(*) FROM outbox o JOIN ballots b ON o.event_id = b.event_id WHERE \(filter.replacingOccurrences(of: "class_name", with: "b.class_name").replacingOccurrences(of: "object_id", with: "b.object_id").replacingOccurrences(of: "state", with: "b.state"))")
        return Ledger(applied: Int(summary.first ?? "") ?? -1, sum: Double(summary.dropFirst().first ?? "") ?? -1,
                      sequences: sequences, eventIds: Int(summary.dropFirst(2).first ?? "") ?? -1,
                      outboxEvents: Int(outbox.first ?? "") ?? -1)
    }
}

/// A psql session that holds one table of a stack database locked (`LOCK TABLE ... IN SHARE MODE`: reads go on,
/// writes to it wait) until `release`.
final class TableLock {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var released = false

    /// Returns once the lock is granted.
    init(database: String, table: String, mode: String = "SHARE") throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [VotesAPI.psql, try VotesAPI.url(database), "-X", "-q", "-t", "-A"]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data("BEGIN;\nLOCK TABLE \(table) IN \(mode) MODE;\nSELECT 'locked';\n".utf8))
        var seen = ""
        while !seen.contains("locked") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw PostsTestError(description: "psql ended before locking \(table)") }
            seen += String(decoding: data, as: UTF8.self)
        }
    }

    func release() {
        guard !released else { return }
        released = true
        input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
