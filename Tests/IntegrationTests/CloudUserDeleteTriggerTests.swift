import Foundation
import ParseWire
import Testing

extension IntegrationSuite {
    /// `_User` beforeDelete and afterDelete, which auth runs around `DELETE /users/<id>`, against a webhook receiver.
    @Suite struct CloudUserDeleteTriggerTests {
        /// Signs up and deletes throw-away users until one reaches the beforeDelete webhook (auth learns of a
        /// registration a moment after it is made), or, after a removal, until one no longer does.
        static func probe(_ receiver: TriggerWebhookReceiver, untilCalled: Bool) async throws {
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                let before = receiver.calls("/delete").count
                let user = try await AuthAPI.signUp("trigprobe")
                _ = try await AuthAPI.send("DELETE", "/users/\(user.id)", token: user.token)
                let called = receiver.calls("/delete").count > before
                if called == untilCalled { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw AuthTestError(description: "auth never \(untilCalled ? "ran" : "stopped running") the beforeDelete trigger")
        }

        @Test func beforeDeleteRefusesAndAfterDeleteSeesTheDeletedUser() async throws {
            let receiver = try TriggerWebhookReceiver()
            let kept = try await AuthAPI.signUp("trigkept")
            let gone = try await AuthAPI.signUp("triggone")
            receiver.handle("/delete") { body in
                body["object"]?["username"] == .string(kept.username)
                    ? TriggerHooks.refusal(142, "This user stays.") : TriggerHooks.success(.object([:]))
            }
            receiver.handle("/deleted") { _ in TriggerHooks.success(.object([:])) }
            try await TriggerHooks.register("_User", "afterDelete", url: receiver.url("/deleted"))
            try await TriggerHooks.register("_User", "beforeDelete", url: receiver.url("/delete"))
            try await TestStack.run({
                try await Self.probe(receiver, untilCalled: true)
                let refused = try await AuthAPI.send("DELETE", "/users/\(kept.id)", token: kept.token)
                #expect(AuthAPI.error(refused) == (142, "This user stays."))
                #expect(try await AuthAPI.send("GET", "/users/\(kept.id)", master: true).status == 200)
                #expect(try await AuthAPI.login(kept.username, kept.password).status == 200)

                let deleted = try await AuthAPI.send("DELETE", "/users/\(gone.id)", token: gone.token)
                #expect(deleted.status == 200)
                #expect(try await AuthAPI.send("GET", "/users/\(gone.id)", master: true).status == 404)
                let before = try #require(receiver.calls("/delete").last)
                #expect(before.body["triggerName"] == .string("beforeDelete"))
                #expect(before.body["object"]?["objectId"] == .string(gone.id))
                #expect(before.body["object"]?["className"] == .string("_User"))
                #expect(receiver.calls("/delete").allSatisfy { $0.body["object"]?["password"] == nil })

                // afterDelete runs after the commit, from auth's outbox: wait for it.
                let deadline = ContinuousClock.now + .seconds(30)
                func afterCalls() -> [TriggerWebhookReceiver.Call] {
                    receiver.calls("/deleted").filter { $0.body["object"]?["objectId"] == .string(gone.id) }
                }
                while afterCalls().isEmpty && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
                let after = afterCalls()
                #expect(after.count == 1)
                #expect(after.first?.body["triggerName"] == .string("afterDelete"))
                #expect(after.first?.body["object"]?["username"] == .string(gone.username))
                #expect(receiver.calls("/deleted").allSatisfy { $0.body["object"]?["objectId"] != .string(kept.id) })
            }, thenAlways: {})
            try await TriggerHooks.remove("_User", "afterDelete")
            try await TriggerHooks.remove("_User", "beforeDelete")
            // Until auth has heard of the removals, deletions still reach the receiver: wait for that before it stops
            // (the list without the later removal's trigger lacks the earlier one's too).
            try await Self.probe(receiver, untilCalled: false)
            await receiver.stop()
        }
    }
}
