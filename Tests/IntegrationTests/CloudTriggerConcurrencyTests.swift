import Foundation
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension IntegrationSuite {
    /// Writes to a class whose beforeSave a worker serves, from many keep-alive clients at once. The example worker's
    /// afterSave on `CloudTriggerCat` calls back into the API for every save, so the worker, cloud and posts are all
    /// busy with each other's work at the same time: no step may hold what another step of the same write needs.
    @Suite struct CloudTriggerConcurrencyTests {
        static let clients = 16
        static let createsPerClient = 10

        /// One keep-alive connection per client, as an app's SDK holds it.
        static func clientSession() -> URLSession {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
            configuration.httpMaximumConnectionsPerHost = 1
            configuration.timeoutIntervalForRequest = 30
            return URLSession(configuration: configuration)
        }

        /// One create: its status and what the trigger added, or the error text.
        struct Outcome: Sendable {
            let name: String
            let status: Int
            let checked: Bool
            let nameLength: Int?
            let text: String
        }

        static func create(_ session: URLSession, name: String, burst: String) async -> Outcome {
            var request = URLRequest(url: URL(string: TestStack.serverURL + "/classes/CloudTriggerCat")!)
            request.httpMethod = "POST"
            request.setValue(TestStack.applicationId, forHTTPHeaderField: "X-Parse-Application-Id")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONSerialization.data(withJSONObject: ["name": name, "burst": burst])
            do {
                let (data, response) = try await session.data(for: request)
                let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
                return Outcome(name: name, status: (response as? HTTPURLResponse)?.statusCode ?? 0,
                               checked: json?["checked"] as? Bool == true, nameLength: json?["nameLength"] as? Int,
                               text: String(decoding: data, as: UTF8.self))
            } catch {
                return Outcome(name: name, status: 0, checked: false, nameLength: nil, text: "\(error)")
            }
        }

        @Test func concurrentCreatesThroughAWorkersBeforeSaveAllSucceed() async throws {
            let burst = PostsHTTP.uniqueClass("burst")
            let outcomes = await withTaskGroup(of: [Outcome].self) { group in
                for client in 0..<Self.clients {
                    group.addTask {
                        let session = Self.clientSession()
                        defer { session.invalidateAndCancel() }
                        var outcomes: [Outcome] = []
                        for n in 0..<Self.createsPerClient {
                            outcomes.append(await Self.create(session, name: "cat\(client)x\(n)", burst: burst))
                        }
                        return outcomes
                    }
                }
                return await group.reduce(into: []) { $0 += $1 }
            }
            #expect(outcomes.count == Self.clients * Self.createsPerClient)
            let failed = outcomes.filter { $0.status != 201 || !$0.checked || $0.nameLength != $0.name.count }
            #expect(failed.isEmpty, "\(failed.count) creates failed, e.g. \(failed.prefix(3).map { "\($0.status) \($0.text)" })")

            // Stored as the trigger left them, every one.
            let stored = try await PostsHTTP.send("GET", "/classes/CloudTriggerCat", master: true,
                                                  query: ["where": #"{"burst":"\#(burst)","checked":true}"#,
                                                          "count": "1", "limit": "0"])
            #expect(stored.json?["count"] as? Int == Self.clients * Self.createsPerClient)
        }
    }
}
