import Contracts
import Testing
@testable import GatewayCore

@Suite struct BatchPlanTests {
    private func makePlan(_ requests: String, transaction: Bool = false) -> BatchPlan? {
        let body = #"{"transaction":\#(transaction),"requests":\#(requests)}"#
        return BatchRequest(body: body, mountPath: "/parse").map {
            BatchPlan($0, voteFields: VoteRoute.Fields(["votes"]), serverURL: "http://h/parse")
        }
    }

    private func splitSteps(_ plan: BatchPlan?) -> [BatchPlan.Step]? {
        if case .split(let steps)? = plan { return steps }
        return nil
    }

    private func refusal(_ plan: BatchPlan?) -> String? {
        if case .refuse(let error)? = plan { return "\(error.code.rawValue) \(error.message)" }
        return nil
    }

    @Test func aBatchOfObjectsGoesToPostsWhole() {
        let plan = makePlan(#"[{"method":"POST","path":"/parse/classes/Cat","body":{"a":1}},{"method":"GET","path":"/parse/classes/Cat"}]"#,
                        transaction: true)
        guard case .forwardWhole? = plan else { Issue.record("expected the whole batch for posts"); return }
    }

    @Test func usersAndRolesAreSplitToTheirOwnerInOrder() throws {
        let steps = try #require(splitSteps(makePlan(#"""
            [{"method":"POST","path":"/parse/classes/_Role","body":{"name":"r"}},
             {"method":"post","path":"/parse/classes/Cat","body":[]},
             {"method":"GET","path":"/parse/users","body":{"where":{"username":"a"},"limit":2}},
             {"method":"DELETE","path":"/elsewhere/classes/Cat/x"}]
            """#)))
        #expect(steps.count == 4)
        guard case .call(.auth, let role) = steps[0], case .call(.posts, let cat) = steps[1],
              case .call(.auth, let users) = steps[2], case .unroutable(let path) = steps[3] else {
            Issue.record("unexpected steps \(steps)"); return
        }
        #expect(role.path == "classes/_Role" && role.body == #"{"name":"r"}"#)
        // PHP's encoding of an empty object.
        #expect(cat.method == "POST" && cat.body == "{}")
        #expect(users.query == ["where": #"{"username":"a"}"#, "limit": "2"] && users.body == nil)
        #expect(path == "/elsewhere/classes/Cat/x")
    }

    @Test func aVoteInABatchGoesToVotes() throws {
        let steps = try #require(splitSteps(makePlan(#"[{"method":"PUT","path":"/parse/classes/Cat/c1","body":{"votes":{"__op":"Increment","amount":1}}}]"#)))
        guard case .vote(let vote) = steps.first else { Issue.record("expected a vote"); return }
        #expect(vote.vote.objectId == "c1" && vote.vote.field == "votes")
    }

    @Test func transactionsThatCannotHoldAreRefusedBeforeAnythingRuns() {
        #expect(refusal(makePlan(#"[{"method":"POST","path":"/parse/classes/_Role","body":{}},{"method":"POST","path":"/parse/classes/Cat","body":{}}]"#,
                             transaction: true)) == "107 A transaction cannot span services: this batch's requests go to auth and posts.")
        #expect(refusal(makePlan(#"[{"method":"PUT","path":"/parse/classes/Cat/c1","body":{"votes":1}},{"method":"POST","path":"/parse/classes/Cat","body":{}}]"#,
                             transaction: true))?.hasPrefix("107 A vote cannot be part of a transaction") == true)
        #expect(refusal(makePlan(#"[{"method":"POST","path":"/parse/users","body":{}},{"method":"POST","path":"/parse/users","body":{}}]"#,
                             transaction: true))?.hasPrefix("107 Transactions are supported for objects of classes only") == true)
        // One request is all or nothing by itself.
        #expect(splitSteps(makePlan(#"[{"method":"POST","path":"/parse/roles","body":{}}]"#, transaction: true))?.count == 1)
    }

    @Test func nestedBatchesAreRefused() {
        #expect(refusal(makePlan(#"[{"method":"POST","path":"/parse/batch","body":{"requests":[]}}]"#))
                == "107 nested batch requests are not allowed")
    }

    @Test func aBodyThatIsNotABatchIsLeftToPosts() {
        #expect(BatchRequest(body: #"{"requests":"nope"}"#, mountPath: "/parse") == nil)
        #expect(BatchRequest(body: #"{"requests":[{"path":1}]}"#, mountPath: "/parse") == nil)
    }
}
