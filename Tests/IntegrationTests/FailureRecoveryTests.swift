import Foundation
import Testing

extension IntegrationSuite {
    /// Stops parts of the running stack and checks the documented answers and the recovery.
    @Suite struct FailureRecovery {
        @Test func stoppedServiceGivesTimeoutAndNotReady() async throws {
            try await TestStack.while(["stop-service", "posts"], restartWith: ["start-service", "posts"]) {
                let started = ContinuousClock.now
                let reply = try await HTTP.send("GET", "/classes/GameScore", headers: HTTP.appHeaders)
                #expect(reply.status == 504)
                #expect(reply.json?["code"] as? Int == 124)
                #expect((reply.json?["error"] as? String)?.contains("posts") == true)
                #expect(ContinuousClock.now - started < .seconds(30))

                let readiness = try await HTTP.send("GET", "/health/ready")
                #expect(readiness.status == 503)
                #expect(readiness.header("Retry-After") != nil)
                let services = readiness.json?["services"] as? [String: [String: Any]]
                #expect(services?["posts"]?["status"] as? String == "unavailable")
                #expect(services?["auth"]?["status"] as? String == "ok")
            }
            let ready = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(30)) { $0.status == 200 }
            #expect(ready.status == 200)
        }

        @Test func brokerDownForTenSecondsThenTheStackRecoversWithoutRestart() async throws {
            try await TestStack.while(["rabbitmq", "stop"], restartWith: ["rabbitmq", "start"]) {
                let readiness = try await HTTP.send("GET", "/health/ready")
                #expect(readiness.status == 503)
                #expect(readiness.json?["broker"] as? String == "unavailable")

                let started = ContinuousClock.now
                let call = try await HTTP.send("GET", "/classes/GameScore", headers: HTTP.appHeaders)
                #expect(call.status == 503)
                #expect(call.json?["code"] as? Int == 100)
                #expect(ContinuousClock.now - started < .seconds(2), "fails fast instead of waiting for a timeout")

                let health = try await HTTP.send("GET", "/health")
                #expect(health.status == 200)
                try await Task.sleep(for: .seconds(10))
            }
            let ready = try await HTTP.waitFor("GET", "/health/ready", timeout: .seconds(60)) { $0.status == 200 }
            #expect(ready.status == 200, "not ready after the broker came back: \(ready.text)")
            let call = try await HTTP.send("GET", "/classes/GameScore", headers: HTTP.appHeaders)
            #expect(TestStack.answeredByAService(call), "requests reach the services again: \(call.status) \(call.text)")
        }
    }
}
