import Foundation
import ParseWire
import Testing

extension IntegrationSuite {
    /// Read-your-writes over Cloud Code registrations: once `/hooks` has answered a registration, an update or a
    /// deletion, the very next request applies it, whichever replica serves it. Each test runs 200 rounds against
    /// two processes of the service that caches the registrations (posts for triggers, cloud for functions).
    @Suite struct HooksCoherence {
        @Test func aTriggerAppliesToTheFirstSaveAfterItsRegistrationIsAnswered() async throws {
            let receiver = try TriggerWebhookReceiver()
            defer { Task { await receiver.stop() } }
            let cls = PostsHTTP.uniqueClass("Guarded")
            try await ServiceReplica.with("posts") {
                var misses: [String] = []
                for round in 0..<200 {
                    let path = "/refuse/\(round)"
                    receiver.handle(path) { _ in TriggerHooks.refusal(142, "refused \(round)") }
                    // Registered anew every other round, else its address changed: both must apply at once.
                    if round.isMultiple(of: 2) {
                        try await TriggerHooks.register(cls, "beforeSave", url: receiver.url(path))
                    } else {
                        try await TriggerHooks.update(cls, "beforeSave", url: receiver.url(path))
                    }
                    let refused = try await PostsHTTP.send("POST", "/classes/\(cls)", ["round": round], master: true)
                    if refused.json?["error"] as? String != "refused \(round)" {
                        misses.append("round \(round) after the registration: \(refused.status) \(refused.text)")
                    }
                    if !round.isMultiple(of: 2) {
                        try await TriggerHooks.remove(cls, "beforeSave")
                        let saved = try await PostsHTTP.send("POST", "/classes/\(cls)", ["round": round], master: true)
                        if saved.status != 201 { misses.append("round \(round) after the deletion: \(saved.status) \(saved.text)") }
                    }
                }
                #expect(misses.isEmpty, "\(misses.count) misses: \(misses.prefix(5))")
            }
        }

        @Test func aFunctionIsCalledAsRegisteredByTheFirstCallAfterTheAnswer() async throws {
            let receiver = try TriggerWebhookReceiver()
            defer { Task { await receiver.stop() } }
            let name = "coherent\(UUID().uuidString.prefix(8))"
            func call() async throws -> Reply { try await PostsHTTP.send("POST", "/functions/\(name)", [:] as [String: Any]) }
            try await ServiceReplica.with("cloud") {
                var misses: [String] = []
                for round in 0..<200 {
                    let path = "/function/\(round)"
                    receiver.handle(path) { _ in TriggerHooks.success(.number(Double(round))) }
                    let registration = round.isMultiple(of: 2)
                        ? try await PostsHTTP.send("POST", "/hooks/functions", ["functionName": name, "url": receiver.url(path)],
                                                   master: true)
                        : try await PostsHTTP.send("PUT", "/hooks/functions/\(name)", ["url": receiver.url(path)], master: true)
                    guard registration.status == 200 else {
                        misses.append("round \(round): registration \(registration.status) \(registration.text)")
                        continue
                    }
                    let answered = try await call()
                    if answered.json?["result"] as? Int != round { misses.append("round \(round): \(answered.text)") }
                    if !round.isMultiple(of: 2) {
                        _ = try await PostsHTTP.send("PUT", "/hooks/functions/\(name)", ["__op": "Delete"], master: true)
                        let gone = try await call()
                        if gone.json?["code"] as? Int != 141 { misses.append("round \(round) after the deletion: \(gone.text)") }
                    }
                }
                #expect(misses.isEmpty, "\(misses.count) misses: \(misses.prefix(5))")
            }
        }
    }
}
