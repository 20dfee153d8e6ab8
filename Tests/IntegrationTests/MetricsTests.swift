import Foundation
import Testing

extension IntegrationSuite {
    /// Every process's `/metrics` after a known workload: the counts match what was done. The suite runs
    /// serialized, so differences between two readings are this test's own requests.
    @Suite struct Metrics {
        @Test func countsMatchAKnownWorkload() async throws {
            let before = try await scrapeAll()
            let cls = PostsHTTP.uniqueClass("MetricsCat")
            let creates = 5, gets = 7, votes = 6
            var ids: [String] = []
            for index in 0..<creates { ids.append(try await PostsHTTP.create(cls, ["name": "cat \(index)", "votes": 0])) }
            for index in 0..<gets {
                let reply = try await PostsHTTP.send("GET", "/classes/\(cls)/\(ids[index % creates])")
                #expect(reply.status == 200, "\(reply.text)")
            }
            let missing = try await PostsHTTP.send("GET", "/classes/\(cls)/doesNotExist")
            #expect(missing.status == 404)
            for index in 0..<votes {
                let reply = try await VotesAPI.increment(cls, ids[index % creates])
                #expect(reply.status == 200, "\(reply.text)")
            }

            // The vote events leave the outbox through the relay, a moment after the answers.
            var after = try await scrapeAll()
            func published(_ process: String, _ type: String) -> Double {
                delta(before, after, process, "parse_events_published_total", ["type": type])
            }
            for _ in 0..<40 where published("votes", "vote.cast.v1") < Double(votes) || published("posts", "object.created.v1") < Double(creates) {
                try await Task.sleep(for: .milliseconds(250))
                after = try await scrapeAll()
            }

            func requests(_ route: String, _ method: String, _ status: String) -> Double {
                delta(before, after, "gateway", "parse_http_requests_total", ["route": route, "method": method, "status": status])
            }
            #expect(requests("classes/:className", "POST", "201") == Double(creates))
            #expect(requests("classes/:className/:objectId", "GET", "200") == Double(gets))
            #expect(requests("classes/:className/:objectId", "GET", "404") == 1)
            #expect(requests("classes/:className/:objectId", "PUT", "200") == Double(votes))
            #expect(delta(before, after, "gateway", "parse_http_request_duration_seconds_count",
                          ["route": "classes/:className/:objectId", "method": "GET"]) == Double(gets + 1))
            #expect(!after["gateway"]!.text.contains(cls), "a class name became a label")

            // posts: one rest.v1 per create and get, and the votes' increments applied in rounds.
            #expect(delta(before, after, "posts", "parse_commands_total", ["type": "rest.v1"]) == Double(creates + gets + 1))
            #expect(delta(before, after, "posts", "parse_commands_total", ["type": "rest.v1", "outcome": "ok"]) >= Double(creates + gets))
            #expect(delta(before, after, "posts", "parse_command_duration_seconds_count", ["type": "rest.v1"])
                    == Double(creates + gets + 1))
            #expect(delta(before, after, "posts", "parse_commands_total", ["type": "votes.apply.v1", "outcome": "ok"]) >= 1)
            #expect(published("posts", "object.created.v1") == Double(creates))

            // votes: one command per vote, each ballot counted once, the rounds holding exactly these ballots.
            #expect(delta(before, after, "votes", "parse_commands_total", ["type": "votes.cast.v1", "outcome": "ok"]) == Double(votes))
            #expect(delta(before, after, "votes", "parse_vote_ballots_total", ["outcome": "applied"]) == Double(votes))
            #expect(delta(before, after, "votes", "parse_vote_round_ballots_sum") == Double(votes))
            #expect(delta(before, after, "votes", "parse_vote_round_ballots_count") >= 1)
            #expect(published("votes", "vote.cast.v1") == Double(votes))

            // The database figures of the services that did the work moved; every backend has its outbox gauges.
            #expect(delta(before, after, "posts", "parse_db_statement_duration_seconds_count") >= Double(creates + gets))
            #expect(delta(before, after, "posts", "parse_db_pool_wait_seconds_count") >= Double(creates + gets))
            // Commands run on the broker connection's thread, and their statements' round trips wait there too.
            #expect(delta(before, after, "posts", "parse_db_round_trips_total", ["waited_on": "loop"]) >= Double(creates + gets))
            for service in ["auth", "posts", "votes", "files"] {
                #expect(after[service]!.has("parse_outbox_pending"), "\(service)")
                #expect(after[service]!.has("parse_outbox_oldest_age_seconds"), "\(service)")
                #expect(after[service]!.sum("parse_amqp_connected", ["connection": "\(service)-commands"]) == 1, "\(service)")
                #expect(after[service]!.has("parse_amqp_unacked_messages"), "\(service)")
            }
            for process in MetricsScrape.urls.keys {
                let scrape = after[process]!
                #expect(scrape.sum("process_resident_memory_bytes") > 1_000_000, "\(process)")
                #expect(scrape.sum("process_open_fds") > 3, "\(process)")
                #expect(scrape.has("process_cpu_seconds_total"), "\(process)")
            }
            #expect(after["gateway"]!.sum("parse_amqp_connected", ["connection": "gateway"]) == 1)
            #expect(after["gateway"]!.has("parse_amqp_queue_messages"))
            #expect(after["gateway"]!.sum("parse_http_requests_in_flight") == 0)
        }

        @Test func labelCardinalityStaysBoundedUnderRandomPaths() async throws {
            let before = try await MetricsScrape.of("gateway").series("parse_http_requests_total")
            var generator = SystemRandomNumberGenerator()
            let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            func word() -> String { String((0..<Int.random(in: 1...12, using: &generator)).map { _ in letters.randomElement(using: &generator)! }) }
            let methods = ["GET", "POST", "PUT", "DELETE", "PATCH"]
            for index in 0..<500 {
                let depth = Int.random(in: 1...5, using: &generator)
                let segments = (0..<depth).map { _ in word() }
                // Some under known routes with random names, some anywhere under the mount, some outside it.
                let path = switch index % 4 {
                case 0: "/parse/classes/" + segments.joined(separator: "/")
                case 1: "/parse/" + segments.joined(separator: "/")
                case 2: "/" + segments.joined(separator: "/")
                default: "/parse/users/" + segments.joined(separator: "/")
                }
                _ = try await HTTP.send(methods[index % methods.count], "", headers: HTTP.appHeaders,
                                        base: TestStack.serverURL.replacingOccurrences(of: "/parse", with: "") + path)
            }
            let after = try await MetricsScrape.of("gateway").series("parse_http_requests_total")
            let added = after.subtracting(before)
            // Templates times five methods times the few statuses these answer: tens, not hundreds.
            #expect(added.count <= 60, "\(added.count) new series: \(added)")
            let routes = Set(after.compactMap { $0["route"] })
            #expect(routes.count <= 40, "\(routes)")
            // The series these random paths added name templates, never a path's own words (other tests' requests
            // made series of templates such as `requestPasswordReset` before).
            let addedRoutes = Set(added.compactMap { $0["route"] })
            #expect(addedRoutes.allSatisfy { $0 == "/" || $0 == "unknown" || $0 == "outside_mount" || !$0.contains(where: \.isUppercase)
                                        || $0.hasPrefix("classes/:") || $0 == "serverInfo" || $0.contains(":") },
                    "\(addedRoutes)")
        }

        @Test func metricsAnswerTheMasterKeyToo() async throws {
            // The tests run on the gateway's own machine (loopback); the master key is accepted besides.
            let scrape = try await MetricsScrape.of("gateway", headers: ["X-Parse-Master-Key": TestStack.masterKey])
            #expect(scrape.has("parse_http_requests_total"))
            let post = try await HTTP.send("POST", "", base: MetricsScrape.urls["gateway"]!)
            #expect(post.status == 404)
        }

        @Test func readinessReportsQueueDepthAndOutboxLagPerService() async throws {
            let reply = try await HTTP.send("GET", "/health/ready")
            #expect(reply.status == 200, "\(reply.text)")
            let services = try #require(reply.json?["services"] as? [String: [String: Any]])
            for name in ["auth", "posts", "votes", "files"] {
                let state = try #require(services[name], "\(name): \(reply.text)")
                #expect(state["status"] as? String == "ok")
                #expect((state["queueDepth"] as? NSNumber).map { $0.intValue >= 0 } == true, "\(name): \(state)")
                #expect((state["outboxPending"] as? NSNumber).map { $0.intValue >= 0 } == true, "\(name): \(state)")
                #expect((state["outboxLagMs"] as? NSNumber).map { $0.doubleValue >= 0 } == true, "\(name): \(state)")
            }
        }

        private func scrapeAll() async throws -> [String: MetricsScrape] {
            var scrapes: [String: MetricsScrape] = [:]
            for process in MetricsScrape.urls.keys { scrapes[process] = try await MetricsScrape.of(process) }
            #expect(Set(scrapes.keys) == ["gateway", "auth", "posts", "votes", "files", "cloud", "push-adapter", "live"])
            return scrapes
        }

        private func delta(_ before: [String: MetricsScrape], _ after: [String: MetricsScrape], _ process: String,
                           _ name: String, _ labels: [String: String] = [:]) -> Double {
            (after[process]?.sum(name, labels) ?? 0) - (before[process]?.sum(name, labels) ?? 0)
        }
    }
}
