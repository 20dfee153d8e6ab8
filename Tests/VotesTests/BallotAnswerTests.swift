import Contracts
import ParseWire
import Runtime
import Testing
@testable import VotesCore

@Suite struct BallotAnswerTests {
    @Test func anIncrementIsAnsweredWithTheTotalAndTheDate() {
        let vote = CastVote(className: "Cat", objectId: "a", field: "votes", kind: .increment, value: 1)
        let answer = AppliedBallot(total: 11, updatedAt: "2026-11-30T14:02:51.492Z").response(to: vote)
        #expect(answer.status == 200)
        #expect(answer.body == #"{"votes":11,"updatedAt":"2026-11-30T14:02:51.492Z"}"#)
    }

    @Test func aPlainSetIsAnsweredWithTheDateOnly() {
        let vote = CastVote(className: "Cat", objectId: "a", field: "votes", kind: .set, value: 4)
        #expect(AppliedBallot(total: 4, updatedAt: "x").response(to: vote).body == #"{"updatedAt":"x"}"#)
    }

    @Test func numbersArePrintedAsJavaScriptPrintsThem() {
        #expect(AppliedBallot.number(3) == "3")
        #expect(AppliedBallot.number(-2) == "-2")
        #expect(AppliedBallot.number(1.5) == "1.5")
    }

    @Test func namesMustBeIdentifiers() {
        #expect(CastVoteHandler.isIdentifier("Cat_2"))
        #expect(!CastVoteHandler.isIdentifier("_User"))
        #expect(!CastVoteHandler.isIdentifier("votes\"; DROP"))
        #expect(!CastVoteHandler.isIdentifier("é"))
        #expect(throws: (any Error).self) {
            try CastVoteHandler.validate(CastVote(className: "Cat", objectId: "a", field: "v", kind: .increment, value: .infinity))
        }
    }

    @Test func duplicateRequestsReplayUnlessAskedToRejectThem() throws {
        #expect(try VotesConfiguration.fromEnvironment(Environment([:])).duplicateRequests == .replay)
        #expect(try VotesConfiguration.fromEnvironment(Environment(["PARSE_VOTE_DUPLICATE_REQUEST": "reject"])).duplicateRequests == .reject)
        #expect(throws: ConfigurationError.self) {
            try VotesConfiguration.fromEnvironment(Environment(["PARSE_VOTE_DUPLICATE_REQUEST": "maybe"]))
        }
    }
}

@Suite struct OncePerUserTests {
    let like = CastVote(className: "Photo", objectId: "a", field: "likes", kind: .increment, value: 1)

    @Test func classesAndFieldsAreConfiguredByName() throws {
        let configuration = try VotesConfiguration.fromEnvironment(Environment(["PARSE_VOTE_ONE_PER_USER": "Photo, Cat.hearts"]))
        #expect(configuration.oncePerUser.contains(className: "Photo", field: "likes"))
        #expect(configuration.oncePerUser.contains(className: "Cat", field: "hearts"))
        #expect(!configuration.oncePerUser.contains(className: "Cat", field: "votes"))
        #expect(try VotesConfiguration.fromEnvironment(Environment([:])).oncePerUser == OncePerUserClasses())
    }

    @Test func aLikeNeedsAUserAndIsPlusOrMinusOne() throws {
        let user = Identity(userId: "u1")
        try CastVoteHandler.validateLike(like, voter: user)
        var retraction = like
        retraction.value = -1
        try CastVoteHandler.validateLike(retraction, voter: user)
        #expect(throws: ParseError(.objectNotFound, "Permission denied, user needs to be authenticated.")) {
            try CastVoteHandler.validateLike(like, voter: .anonymous)
        }
        #expect(throws: ParseError.self) { try CastVoteHandler.validateLike(like, voter: .master) }
        for (kind, value) in [(CastVote.Kind.increment, 2.0), (.increment, 0), (.set, 1)] {
            var odd = like
            odd.kind = kind
            odd.value = value
            #expect((try? CastVoteHandler.validateLike(odd, voter: user)) == nil)
            do {
                try CastVoteHandler.validateLike(odd, voter: user)
            } catch {
                #expect(error.code == .invalidJSON)
            }
        }
    }
}
