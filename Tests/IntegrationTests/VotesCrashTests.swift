import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

extension IntegrationSuite {
    /// Votes keep coming while `votes`, then `posts`, then the gateway are killed with SIGKILL and RabbitMQ is
    /// restarted. Clients retry a vote with its request id until it is acknowledged, as an SDK's retry does. At the
    /// end: every acknowledged vote is in the ledger and in the counter, nothing is counted twice, and every applied
    /// ballot has exactly one event, published; when the `vote-consumer` executable is built, it is run on a queue
    /// of its own and must have seen each of those events (duplicates after the broker restart are allowed and
    /// deduplicated by id, as the contract says).
    @Suite struct VotesCrash {
        @Test(.timeLimit(.minutes(5))) func acknowledgedVotesSurviveKillsAndABrokerRestart() async throws {
            let cls = PostsHTTP.uniqueClass("CrashCat")
            let id = try await PostsHTTP.create(cls, ["votes": 0])
            let consumer = try VoteConsumerProcess.start(className: cls)
            let load = VoteLoad(className: cls, objectId: id)
            let clients = (0..<8).map { _ in Task { await load.runClient() } }

            try await Task.sleep(for: .seconds(2))
            for name in ["votes", "posts", "gateway"] {
                try VoteConsumerProcess.kill(service: name)
                try TestStack.control(["start-service", name])
                try await Task.sleep(for: .seconds(2))
            }
            try TestStack.control(["rabbitmq", "stop"])
            try TestStack.control(["rabbitmq", "start"])
            _ = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(60)) { $0.status == 200 }
            try await Task.sleep(for: .seconds(2))
            await load.stop()
            for client in clients { await client.value }

            // Ballots the crashes left pending are completed by the votes service's recovery.
            let (pending, unpublished) = try await VotesAPI.waitUntilSettled(cls)
            let acknowledged = await load.acknowledged
            let applied = Set(try VotesAPI.sql("parse_votes", "SELECT request_id FROM ballots WHERE class_name = '\(cls)' AND state = 'applied'"))
            let ledger = try await VotesAPI.ledger(cls, id)
            let counter = try await VotesAPI.count(cls, id) ?? -1
            let postsApplied = Int(try VotesAPI.sql("parse_posts", "SELECT count(*) FROM vote_applied WHERE class_name = '\(cls)'").first ?? "") ?? -1
            let seen = try consumer?.finish(expecting: ledger.applied)
            print("""
                crash test: acknowledged \(acknowledged.count), attempts \(await load.attempts), applied \(ledger.applied), \
                counter \(Int(counter)), ledger sum \(Int(ledger.sum)), posts applied \(postsApplied), pending \(pending), \
                events \(ledger.eventIds), unpublished \(unpublished), \
                consumer distinct \(seen.map { String($0.distinct) } ?? "not built"), consumer deliveries \(seen.map { String($0.deliveries) } ?? "-")
                """)
            #expect(acknowledged.count > 0)
            #expect(acknowledged.isSubset(of: applied), "acknowledged but not in the ledger: \(acknowledged.subtracting(applied).count)")
            #expect(counter == ledger.sum && Double(ledger.applied) == ledger.sum)
            #expect(postsApplied == ledger.applied)
            #expect(ledger.sequences == (0..<ledger.applied).map { $0 + 1 })
            #expect(pending == 0 && unpublished == 0)
            #expect(ledger.eventIds == ledger.applied)
            if let seen { #expect(seen.distinct == ledger.applied) }
        }
    }
}

/// Clients voting on one object as fast as they can. Each vote has its own request id and is retried with it
/// (after connection errors, 5xx, timeouts) until it is acknowledged or the load is stopped.
actor VoteLoad {
    let className: String
    let objectId: String
    private(set) var acknowledged = Set<String>()
    private(set) var attempts = 0
    private var stopped = false

    init(className: String, objectId: String) {
        self.className = className
        self.objectId = objectId
    }

    func stop() { stopped = true }

    private func record(_ requestId: String) { acknowledged.insert(requestId) }
    private func attempt() { attempts += 1 }

    nonisolated func runClient() async {
        while !(await stopped) {
            let requestId = UUID().uuidString.lowercased()
            // Once a vote is sent, it is retried until acknowledged, even after the load is stopped (bounded).
            let giveUp = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < giveUp {
                await attempt()
                if let reply = try? await VotesAPI.increment(className, objectId, requestId: requestId), reply.status == 200 {
                    await record(requestId)
                    break
                }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}

/// The `vote-consumer` executable on a queue of its own, when it is built next to the services.
struct VoteConsumerProcess {
    let pid: pid_t
    let output: String
    let queue: String

    /// `keys` default to the casts of `className`.
    static func start(className: String, keys: [String]? = nil, queue: String? = nil) throws -> VoteConsumerProcess? {
        let binary = TestStack.environment["PARSE_TEST_VOTE_CONSUMER"]
            ?? (TestStack.environment["PARSE_BIN_DIR"] ?? ".build/debug") + "/vote-consumer"
        guard FileManager.default.isExecutableFile(atPath: binary) else { return nil }
        let queue = queue ?? "crash-test-" + className
        let keys = (keys ?? ["vote.cast.\(className)"]).joined(separator: ",")
        let output = NSTemporaryDirectory() + queue + ".jsonl"
        let arguments: [String] = ["/bin/sh", "-c",
                                   "exec '\(binary)' consume --queue \(queue) --keys \(keys) >'\(output)' 2>/dev/null"]
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = TestStack.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, envp) == 0 else { return nil }
        usleep(1_500_000)   // its queue is bound before the first vote
        return VoteConsumerProcess(pid: pid, output: output, queue: queue)
    }

    /// Runs `vote-consumer replay --from <from> --class <className>` to its end; the events it printed.
    static func replay(from: Date, className: String) throws -> [[String: Any]] {
        let binary = TestStack.environment["PARSE_TEST_VOTE_CONSUMER"]
            ?? (TestStack.environment["PARSE_BIN_DIR"] ?? ".build/debug") + "/vote-consumer"
        let formatter = ISO8601DateFormatter()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["replay", "--from", formatter.string(from: from), "--class", className]
        process.environment = TestStack.environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PostsTestError(description: "vote-consumer replay exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    /// The events printed so far, one JSON object per line.
    func events() -> [[String: Any]] {
        ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }
    }

    func stop() {
        Glibc.kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        try? FileManager.default.removeItem(atPath: output)
    }

    /// Waits until the consumer has seen `expected` distinct events (30 s at most), stops it, and counts.
    func finish(expecting expected: Int) throws -> (distinct: Int, deliveries: Int) {
        var result = (distinct: 0, deliveries: 0)
        for _ in 0..<60 {
            let lines = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: "\n")
            let ids = lines.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
            }
            result = (Set(ids).count, ids.count)
            if result.distinct >= expected { break }
            usleep(500_000)
        }
        stop()
        return result
    }

    /// SIGKILL to a service of the test stack, by the pid the stack script recorded.
    static func kill(service name: String) throws {
        let text = try String(contentsOfFile: "\(TestStack.folder)/run/\(name).pid", encoding: .utf8)
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 else {
            throw PostsTestError(description: "no pid for \(name)")
        }
        Glibc.kill(pid, SIGKILL)
        usleep(200_000)
    }
}
