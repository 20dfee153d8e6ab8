import Contracts
import Testing
@testable import GatewayCore

@Suite struct VoteRouteTests {
    private let route = VoteRoute(fields: VoteRoute.Fields(["votes", "Post.likes"]))

    private func plan(_ body: String?, method: String = "PUT", path: String = "classes/Post/abc123") -> VoteRoute.Plan? {
        route.plan(method: method, path: path, body: body)
    }

    @Test func incrementOfANumberIsAVote() {
        let plan = plan(#"{"votes":{"__op":"Increment","amount":1}}"#)
        #expect(plan == VoteRoute.Plan(vote: CastVote(className: "Post", objectId: "abc123", field: "votes",
                                                      kind: .increment, value: 1),
                                       rest: nil))
    }

    @Test func negativeAndFractionalIncrementsKeepTheirAmount() {
        #expect(plan(#"{"votes":{"__op":"Increment","amount":-1}}"#)?.vote.value == -1)
        #expect(plan(#"{"votes":{"__op":"Increment","amount":2.5}}"#)?.vote.value == 2.5)
    }

    @Test func plainNumberIsASet() {
        let plan = plan(#"{"votes":42}"#)
        #expect(plan?.vote == CastVote(className: "Post", objectId: "abc123", field: "votes", kind: .set, value: 42))
        #expect(plan?.rest == nil)
    }

    @Test func otherFieldsAreLeftAsTheRest() {
        let plan = plan(#"{"title":"Hello","votes":{"__op":"Increment","amount":1},"tags":["a"]}"#)
        #expect(plan?.vote.kind == .increment)
        #expect(plan?.vote.field == "votes")
        // Keys sorted, so the text is stable.
        #expect(plan?.rest == #"{"tags":["a"],"title":"Hello"}"#)
    }

    @Test func twoVoteFieldsInOneBodyAreNotAVote() {
        #expect(plan(#"{"votes":1,"likes":{"__op":"Increment","amount":1}}"#) == nil)
    }

    @Test(arguments: [
        #"{"votes":{"__op":"Delete"}}"#,
        #"{"votes":{"__op":"Increment","amount":"1"}}"#,
        #"{"votes":{"__op":"Increment"}}"#,
        #"{"votes":{"__op":"Add","objects":[1]}}"#,
        #"{"votes":{"__op":"increment","amount":1}}"#,
        #"{"votes":"5"}"#,
        #"{"votes":true}"#,
        #"{"votes":null}"#,
        #"{"votes":[1]}"#,
    ])
    func otherChangesOfAVoteFieldAreNotVotes(body: String) {
        #expect(plan(body) == nil)
    }

    @Test(arguments: [#"{"title":"Hello"}"#, #"{}"#, "[1]", "42", "not json", ""])
    func bodiesWithoutAVoteFieldAreNotVotes(body: String) {
        #expect(plan(body) == nil)
    }

    @Test func missingBodyIsNotAVote() {
        #expect(plan(nil) == nil)
    }

    @Test(arguments: ["POST", "GET", "DELETE", "put", "PATCH"])
    func onlyPUTIsAVote(method: String) {
        #expect(plan(#"{"votes":1}"#, method: method) == nil)
    }

    @Test(arguments: ["classes/Post", "classes/Post/", "classes/Post/abc/extra", "classes", "Classes/Post/abc",
                      "users/abc", "batch", "/classes/Post/abc", "classes/Post/abc/"])
    func pathsThatAreNotAnObjectAreNotVotes(path: String) {
        #expect(plan(#"{"votes":1}"#, path: path) == nil)
    }

    @Test(arguments: ["classes/_User/abc", "classes/_Installation/abc", "classes/_Session/abc"])
    func systemClassesHaveNoVotes(path: String) {
        #expect(plan(#"{"votes":1}"#, path: path) == nil)
    }

    @Test func classEntryMakesAVoteInItsClassOnly() {
        #expect(plan(#"{"likes":{"__op":"Increment","amount":1}}"#)?.vote.field == "likes")
        #expect(plan(#"{"likes":{"__op":"Increment","amount":1}}"#, path: "classes/Comment/abc123") == nil)
    }

    @Test func classEntryNamingAnotherClassDoesNotCountAsASecondVoteField() {
        // `Post.likes` only exists in Post, so in Comment this body has one vote field.
        let plan = plan(#"{"votes":1,"likes":2}"#, path: "classes/Comment/abc123")
        #expect(plan?.vote.field == "votes")
        #expect(plan?.rest == #"{"likes":2}"#)
    }

    @Test func objectIdAndClassComeFromThePath() {
        let plan = plan(#"{"votes":1}"#, path: "classes/Comment/XyZ09")
        #expect(plan?.vote.className == "Comment")
        #expect(plan?.vote.objectId == "XyZ09")
    }

    @Test
    func emptyClassNameIsNotAVote() {
        #expect(plan(#"{"votes":1}"#, path: "classes//abc") == nil)
    }
}
