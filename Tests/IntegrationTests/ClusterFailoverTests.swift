import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension IntegrationSuite {
    /// On the three-node cluster (`PARSE_TEST_AMQP_NODES=3 deploy/stack test --filter ClusterFailover`): votes keep
    /// coming on a few objects while RabbitMQ node 1 (where every service connected first) is killed with SIGKILL and
    /// started again, then node 2 (where they moved). Each vote is retried with its request id until acknowledged.
    /// At the end: every acknowledged vote is in the ledger and in its counter exactly once, every applied ballot's
    /// event reached a consumer's quorum queue (duplicates allowed, no gap in any object's sequence), every request
    /// was answered by the gateway (a success, or a Parse error at once or at the request timeout, never a hang), and
    /// the services ran throughout with the same pids.
    @Suite(.enabled(if: (Int(TestStack.environment["PARSE_TEST_AMQP_NODES"] ?? "1") ?? 1) >= 3,
                    "needs the test stack on a RabbitMQ cluster: PARSE_TEST_AMQP_NODES=3 deploy/stack test"))
    struct ClusterFailover {
        @Test(.timeLimit(.minutes(6))) func votesSurviveTheLossOfOneNodeThenAnother() async throws {
            let cls = PostsHTTP.uniqueClass("ClusterCat")
            var ids: [String] = []
            for _ in 0..<4 { ids.append(try await PostsHTTP.create(cls, ["votes": 0])) }
            let consumer = try #require(try VoteConsumerProcess.start(className: cls, queue: "cluster-test-" + cls),
                                        "vote-consumer must be built next to the services")
            let servicePids = try ClusterNodes.servicePids()
            let load = ClusterVoteLoad(className: cls, objectIds: ids)
            let clients = (0..<8).map { index in Task { await load.runClient(index) } }

            try await Task.sleep(for: .seconds(3))
            for node in [1, 2] {
                try ClusterNodes.kill(node: node)
                try await Task.sleep(for: .seconds(5))
                try TestStack.control(["rabbitmq", "start"])
                try await Task.sleep(for: .seconds(3))
            }
            await load.stop()
            for client in clients { await client.value }

            // Ballots the losses left pending are completed by the votes service's recovery.
            let (pending, unpublished) = try await VotesAPI.waitUntilSettled(cls)
            let acknowledged = await load.acknowledged
            let (applied, ledgers, counters) = try await VotesAPI.outcome(cls, ids)
            let totalApplied = ledgers.values.map(\.applied).reduce(0, +)
            let postsApplied = Int(try VotesAPI.sql("parse_posts", "SELECT count(*) FROM vote_applied WHERE class_name = '\(cls)'").first ?? "") ?? -1
            let seen = try consumer.finishWithEvents(expecting: totalApplied)
            let outcomes = await load.outcomes
            print("""
                cluster failover: acknowledged \(acknowledged.count), attempts \(outcomes.attempts), \
                answered 200 \(outcomes.succeeded), Parse errors \(outcomes.parseErrors) (by status \(outcomes.errorStatuses)), \
                unanswered \(outcomes.unanswered.count), slowest answer \(outcomes.slowestMilliseconds) ms \
                (request timeout \(ClusterVoteLoad.requestTimeoutMilliseconds), \(outcomes.pastTheTimeout) answers after it); \
                applied \(totalApplied), posts applied \(postsApplied), pending \(pending), unpublished \(unpublished), \
                events distinct \(seen.distinct), deliveries \(seen.deliveries)
                """)
            #expect(acknowledged.count > 0)
            #expect(outcomes.unanswered.isEmpty, "requests without an answer from the gateway: \(outcomes.unanswered.prefix(3))")
            #expect(outcomes.otherAnswers.isEmpty, "answers that are neither a success nor a Parse error: \(outcomes.otherAnswers.prefix(3))")
            #expect(acknowledged.isSubset(of: applied), "acknowledged but not in the ledger: \(acknowledged.subtracting(applied).count)")
            for id in ids {
                let ledger = try #require(ledgers[id])
                #expect(counters[id] == ledger.sum && Double(ledger.applied) == ledger.sum, "object \(id)")
                #expect(ledger.sequences == (0..<ledger.applied).map { $0 + 1 }, "object \(id)")
                #expect(ledger.eventIds == ledger.applied, "object \(id)")
                #expect(seen.sequences[id, default: []] == Set((0..<ledger.applied).map { $0 + 1 }),
                        "object \(id): delivered sequences \(seen.sequences[id, default: []].sorted().prefix(20))...")
            }
            #expect(postsApplied == totalApplied)
            #expect(pending == 0 && unpublished == 0)
            #expect(seen.distinct == totalApplied)
            #expect(try ClusterNodes.servicePids() == servicePids, "a service was restarted")
            let ready = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(30)) { $0.status == 200 }
            #expect(ready.status == 200)
        }
    }
}

/// The broker nodes and services of the test stack, by the pids its script recorded.
enum ClusterNodes {
    static let runDirectory = (TestStack.environment["PARSE_STACK_DIR"] ?? ".stack/test") + "/run"

    static func pid(_ file: String) throws -> pid_t {
        let text = try String(contentsOfFile: "\(runDirectory)/\(file).pid", encoding: .utf8)
        guard let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 else {
            throw PostsTestError(description: "no pid in \(file).pid")
        }
        return pid
    }

    /// SIGKILL to node N's Erlang VM, as a crash of that machine would end it.
    static func kill(node: Int) throws {
        let pid = try pid(node == 1 ? "rabbitmq-beam" : "rabbitmq\(node)-beam")
        print("cluster failover: kill -9 of RabbitMQ node \(node) (pid \(pid))")
        Glibc.kill(pid, SIGKILL)
    }

    static func servicePids() throws -> [String: pid_t] {
        var pids: [String: pid_t] = [:]
        for name in ["gateway", "auth", "posts", "votes", "files"] { pids[name] = try pid(name) }
        return pids
    }
}

/// What the clients of `ClusterVoteLoad` got back.
struct VoteOutcomes: Sendable {
    var attempts = 0
    var succeeded = 0
    var parseErrors = 0
    var errorStatuses: [Int: Int] = [:]
    var unanswered: [String] = []
    var otherAnswers: [String] = []
    var slowestMilliseconds = 0
    /// Answers that came later than the gateway's request timeout (a 504 comes right at it).
    var pastTheTimeout = 0
}

/// Clients voting on a few objects, each vote retried with its request id until acknowledged (bounded). A request
/// that the gateway has not answered 10 s after its own request timeout counts as unanswered: the gateway answers
/// every request by then, with the vote's outcome or a Parse error.
actor ClusterVoteLoad {
    static let requestTimeoutMilliseconds = Int(TestStack.environment["PARSE_REQUEST_TIMEOUT_MS"] ?? "") ?? 10_000
    /// A session for one client, with one connection that the client reuses back to back. A pool shared by the
    /// clients keeps connections that sit idle until the gateway closes them (`PARSE_HTTP_CONNECTION_TIMEOUT`);
    /// one picked up just as it is closed ends in an empty reply to a request the gateway never read, a close
    /// HTTP/1.1 allows on an idle connection. Here no connection idles that long, so an empty reply is a request
    /// the gateway dropped.
    static func clientSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = Double(requestTimeoutMilliseconds) / 1000 + 10
        configuration.httpMaximumConnectionsPerHost = 1
        return URLSession(configuration: configuration)
    }

    let className: String
    let objectIds: [String]
    private(set) var acknowledged = Set<String>()
    private(set) var outcomes = VoteOutcomes()
    private var stopped = false

    init(className: String, objectIds: [String]) {
        self.className = className
        self.objectIds = objectIds
    }

    func stop() { stopped = true }

    private func record(_ requestId: String, _ reply: Reply?, error: (any Error)?, milliseconds: Int) {
        outcomes.attempts += 1
        outcomes.slowestMilliseconds = max(outcomes.slowestMilliseconds, milliseconds)
        if milliseconds > Self.requestTimeoutMilliseconds { outcomes.pastTheTimeout += 1 }
        guard let reply else {
            outcomes.unanswered.append("\(requestId): \(error.map { "\($0)" } ?? "no reply")")
            return
        }
        if reply.status == 200 {
            outcomes.succeeded += 1
            acknowledged.insert(requestId)
        } else if let json = reply.json, json["code"] is NSNumber, json["error"] is String {
            outcomes.parseErrors += 1
            outcomes.errorStatuses[reply.status, default: 0] += 1
        } else {
            outcomes.otherAnswers.append("\(reply.status) \(reply.text.prefix(200))")
        }
    }

    nonisolated func runClient(_ index: Int) async {
        let session = Self.clientSession()
        defer { session.invalidateAndCancel() }
        var round = 0
        while !(await stopped) {
            let requestId = UUID().uuidString.lowercased()
            let objectId = objectIds[(index + round) % objectIds.count]
            round += 1
            let giveUp = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < giveUp {
                let start = ContinuousClock.now
                var reply: Reply?
                var failure: (any Error)?
                do { reply = try await vote(objectId, requestId: requestId, session: session) } catch { failure = error }
                let elapsed = ContinuousClock.now - start
                let milliseconds = Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
                await record(requestId, reply, error: failure, milliseconds: milliseconds)
                if reply?.status == 200 { break }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}

extension ClusterVoteLoad {
    nonisolated func vote(_ objectId: String, requestId: String, session: URLSession) async throws -> Reply {
        var request = URLRequest(url: URL(string: "\(TestStack.serverURL)/classes/\(className)/\(objectId)")!)
        request.httpMethod = "PUT"
        for (name, value) in HTTP.appHeaders { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(requestId, forHTTPHeaderField: "X-Parse-Request-Id")
        request.httpBody = Data(#"{"votes":{"__op":"Increment","amount":1}}"#.utf8)
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        return Reply(status: http.statusCode, headers: [:], body: data)
    }
}

extension VoteConsumerProcess {
    /// Waits until the consumer has seen `expected` distinct events (30 s at most), stops it, and gives the distinct
    /// ids, the deliveries and the sequences seen per object.
    func finishWithEvents(expecting expected: Int) throws -> (distinct: Int, deliveries: Int, sequences: [String: Set<Int>]) {
        var events: [[String: Any]] = []
        for _ in 0..<60 {
            events = self.events()
            if Set(events.compactMap { $0["id"] as? String }).count >= expected { break }
            usleep(500_000)
        }
        stop()
        var sequences: [String: Set<Int>] = [:]
        for event in events {
            guard let data = event["data"] as? [String: Any], let object = data["objectId"] as? String,
                  let sequence = (data["sequence"] as? NSNumber)?.intValue else { continue }
            sequences[object, default: []].insert(sequence)
        }
        return (Set(events.compactMap { $0["id"] as? String }).count, events.count, sequences)
    }
}
