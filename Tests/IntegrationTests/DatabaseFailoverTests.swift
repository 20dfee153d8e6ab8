import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension IntegrationSuite {
    /// On three PostgreSQL nodes with automatic failover (`PARSE_TEST_PG_NODES=3 deploy/stack test --filter
    /// DatabaseFailover`): 16 clients vote and create, each write retried with its request id until acknowledged,
    /// while a node is killed with SIGKILL as its machine would die. Every acknowledged vote and create must be
    /// stored once, the counters equal the ledger, the events equal the ledger, and the services keep running.
    @Suite(.enabled(if: (Int(TestStack.environment["PARSE_TEST_PG_NODES"] ?? "1") ?? 1) >= 3,
                    "needs the test stack on PostgreSQL nodes: PARSE_TEST_PG_NODES=3 deploy/stack test"))
    struct DatabaseFailover {
        /// The primary is killed; the monitor promotes a standby, the services find it through their multi-host
        /// URL, and the old primary, started again, rejoins as a standby.
        @Test(.timeLimit(.minutes(6))) func acknowledgedWritesSurviveTheLossOfThePrimary() async throws {
            try await Self.writesSurvive(killing: "primary", recoveryBound: .seconds(30))
        }

        /// A standby is killed: commits go on, acknowledged by the other standby, and nothing is lost.
        @Test(.timeLimit(.minutes(6))) func writesGoOnWhenAStandbyIsLost() async throws {
            try await Self.writesSurvive(killing: "standby", recoveryBound: .seconds(30))
        }

        static func writesSurvive(killing which: String, recoveryBound: Duration) async throws {
            let cls = PostsHTTP.uniqueClass("FailoverCat")
            let items = cls + "Item"
            var ids: [String] = []
            for _ in 0..<4 { ids.append(try await PostsHTTP.create(cls, ["votes": 0])) }
            let consumer = try #require(try VoteConsumerProcess.start(className: cls, queue: "failover-test-" + cls),
                                        "vote-consumer must be built next to the services")
            let servicePids = try ClusterNodes.servicePids()
            let votes = ClusterVoteLoad(className: cls, objectIds: ids)
            let creates = CreateLoad(className: items)
            var clients = (0..<8).map { index in Task { await votes.runClient(index) } }
            clients += (0..<8).map { _ in Task { await creates.runClient() } }

            // Readiness says which node each service writes to, and its standbys.
            let before = try await Self.database(of: "posts")
            #expect(before.standbys == 2, "\(before)")
            try await Task.sleep(for: .seconds(3))
            let killed = ContinuousClock.now
            try TestStack.control(["postgres", "kill", which])
            // The first write acknowledged after the kill, by a create of its own.
            var recovered: Duration?
            let probe = ClusterVoteLoad.clientSession()
            defer { probe.invalidateAndCancel() }
            while ContinuousClock.now - killed < .seconds(60) {
                if (try? await CreateLoad.create(items, requestId: UUID().uuidString.lowercased(), session: probe))?.status == 201 {
                    recovered = ContinuousClock.now - killed
                    break
                }
                try await Task.sleep(for: .milliseconds(100))
            }
            print("database failover (\(which) killed): first write acknowledged \(recovered.map { "\($0)" } ?? "never") after the kill")
            try await Task.sleep(for: .seconds(5))
            await votes.stop()
            await creates.stop()
            for client in clients { await client.value }
            // The killed node comes back and rejoins (the command waits until it serves as a standby).
            let restarted = ContinuousClock.now
            try TestStack.control(["postgres", "start"])
            let rejoined = ContinuousClock.now - restarted

            let (pending, unpublished) = try await VotesAPI.waitUntilSettled(cls)
            let acknowledged = await votes.acknowledged
            let (applied, ledgers, counters) = try await VotesAPI.outcome(cls, ids)
            let totalApplied = ledgers.values.map(\.applied).reduce(0, +)
            let seen = try consumer.finishWithEvents(expecting: totalApplied)
            let voteOutcomes = await votes.outcomes
            let createOutcomes = await creates.outcomes
            let createdTags = try await CreateLoad.storedTags(items)
            let acknowledgedCreates = await creates.acknowledged
            print("""
                database failover (\(which) killed): node back as a standby \(rejoined) after its start; votes acknowledged \
                \(acknowledged.count) of \(voteOutcomes.attempts) attempts (Parse errors by status \
                \(voteOutcomes.errorStatuses)), creates acknowledged \(acknowledgedCreates.count) of \
                \(createOutcomes.attempts) attempts (Parse errors by status \(createOutcomes.errorStatuses)); \
                applied \(totalApplied), pending \(pending), unpublished \(unpublished), events distinct \(seen.distinct), \
                deliveries \(seen.deliveries), objects created \(createdTags.count)
                """)
            let recovery = try #require(recovered, "no write was acknowledged within 60 s of the kill")
            #expect(recovery < recoveryBound)
            #expect(acknowledged.count > 0 && acknowledgedCreates.count > 0)
            for outcomes in [voteOutcomes, createOutcomes] {
                #expect(outcomes.unanswered.isEmpty, "requests without an answer: \(outcomes.unanswered.prefix(3))")
                #expect(outcomes.otherAnswers.isEmpty, "answers neither a success nor a Parse error: \(outcomes.otherAnswers.prefix(3))")
                #expect(outcomes.errorStatuses.keys.allSatisfy { $0 == 503 || $0 == 504 }, "\(outcomes.errorStatuses)")
            }
            #expect(acknowledged.isSubset(of: applied), "acknowledged but not in the ledger: \(acknowledged.subtracting(applied).count)")
            for id in ids {
                let ledger = try #require(ledgers[id])
                #expect(counters[id] == ledger.sum && Double(ledger.applied) == ledger.sum, "object \(id)")
                #expect(ledger.sequences == (0..<ledger.applied).map { $0 + 1 }, "object \(id)")
                #expect(seen.sequences[id, default: []] == Set((0..<ledger.applied).map { $0 + 1 }), "object \(id)")
            }
            #expect(pending == 0 && unpublished == 0)
            #expect(seen.distinct == totalApplied)
            // Each acknowledged create is stored, and no create is stored twice.
            #expect(Set(createdTags).count == createdTags.count, "a create stored twice")
            #expect(acknowledgedCreates.isSubset(of: Set(createdTags)),
                    "acknowledged creates missing: \(acknowledgedCreates.subtracting(createdTags).count)")
            #expect(try ClusterNodes.servicePids() == servicePids, "a service was restarted")
            let ready = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(30)) { $0.status == 200 }
            #expect(ready.status == 200, "\(ready.text)")
            let after = try await Self.database(of: "posts")
            #expect(which == "primary" ? after.server != before.server : after.server == before.server, "\(before) -> \(after)")
        }

        /// What `/health/ready` says of a service's database: the server it writes to and its streaming standbys.
        static func database(of service: String) async throws -> (server: String?, standbys: Int?) {
            let ready = try await HTTP.send("GET", "/health/ready")
            let state = (ready.json?["services"] as? [String: Any])?[service] as? [String: Any]
            return (state?["databaseServer"] as? String, state?["standbys"] as? Int)
        }
    }
}

/// Clients creating objects, each create retried with its request id until acknowledged (bounded); the object's
/// `tag` is its request id, so the stored objects say which creates were applied and how often.
actor CreateLoad {
    let className: String
    private(set) var acknowledged = Set<String>()
    private(set) var outcomes = VoteOutcomes()
    private var stopped = false

    init(className: String) { self.className = className }

    func stop() { stopped = true }

    private func record(_ requestId: String, _ reply: Reply?, error: (any Error)?) {
        outcomes.attempts += 1
        guard let reply else {
            outcomes.unanswered.append("\(requestId): \(error.map { "\($0)" } ?? "no reply")")
            return
        }
        if reply.status == 201 {
            outcomes.succeeded += 1
            acknowledged.insert(requestId)
        } else if let json = reply.json, json["code"] is NSNumber, json["error"] is String {
            outcomes.parseErrors += 1
            outcomes.errorStatuses[reply.status, default: 0] += 1
        } else {
            outcomes.otherAnswers.append("\(reply.status) \(reply.text.prefix(200))")
        }
    }

    nonisolated func runClient() async {
        let session = ClusterVoteLoad.clientSession()
        defer { session.invalidateAndCancel() }
        while !(await stopped) {
            let requestId = UUID().uuidString.lowercased()
            let giveUp = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < giveUp {
                var reply: Reply?
                var failure: (any Error)?
                do { reply = try await Self.create(className, requestId: requestId, session: session) } catch { failure = error }
                await record(requestId, reply, error: failure)
                if reply?.status == 201 { break }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    static func create(_ className: String, requestId: String, session: URLSession) async throws -> Reply {
        var request = URLRequest(url: URL(string: "\(TestStack.serverURL)/classes/\(className)")!)
        request.httpMethod = "POST"
        for (name, value) in HTTP.appHeaders { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(requestId, forHTTPHeaderField: "X-Parse-Request-Id")
        request.httpBody = Data(#"{"tag":"\#(requestId)"}"#.utf8)
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        return Reply(status: http.statusCode, headers: [:], body: data)
    }

    /// The `tag` of every stored object of the class, duplicates included.
    static func storedTags(_ className: String) async throws -> [String] {
        var tags: [String] = []
        var skip = 0
        while true {
            let page = try await PostsHTTP.send("GET", "/classes/\(className)", master: true,
                                                query: ["limit": "1000", "skip": String(skip), "keys": "tag", "order": "createdAt"])
            let results = try #require(page.json?["results"] as? [[String: Any]], "\(page.text)")
            tags += results.compactMap { $0["tag"] as? String }
            if results.count < 1000 { return tags }
            skip += 1000
        }
    }
}
