import Contracts
import Foundation
import Testing
@testable import VotesCore

@Suite struct VoteEventTests {
    let ballot = Ballot(ballotId: "0d6b2d1e-5f0a-4f7e-8d0c-2b8f3f2f9e10", requestId: "r-1", voter: Identity(userId: "u1"),
                        vote: CastVote(className: "Cat", objectId: "QtjcqDbaAi", field: "votes", kind: .increment, value: 1))

    @Test func aCastIsACloudEventWithTheBallotTheTotalAndTheSequence() throws {
        let event = try VoteEvents.encoded(eventId: "6f1c5a0e-3d2b-4a57-9a33-0d9f1f0d2b11", ballot: ballot, amount: 1,
                                           total: 11, sequence: 11)
        #expect(event.routingKey == "vote.cast.Cat")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as? [String: Any])
        #expect(json["specversion"] as? String == "1.0")
        #expect(json["id"] as? String == event.id)
        #expect(json["type"] as? String == "vote.cast.v1")
        #expect(json["source"] as? String == "/parse/votes")
        #expect(json["subject"] as? String == "Cat/QtjcqDbaAi")
        #expect((json["time"] as? String)?.hasSuffix("Z") == true)
        let data = try #require(json["data"] as? [String: Any])
        #expect(data["ballotId"] as? String == ballot.ballotId)
        #expect(data["total"] as? Int == 11 && data["sequence"] as? Int == 11 && data["amount"] as? Int == 1)
        #expect(data["voter"] as? String == "u1" && data["requestId"] as? String == "r-1")
    }

    @Test func aNegativeAmountIsARetractionAndAnAnonymousVoterIsNull() throws {
        var anonymous = ballot
        anonymous.voter = .anonymous
        let event = try VoteEvents.encoded(eventId: "e", ballot: anonymous, amount: -1, total: 3, sequence: 5)
        #expect(event.routingKey == "vote.retracted.Cat")
        #expect(event.payload.contains(#""type":"vote.retracted.v1""#))
        #expect(event.payload.contains(#""voter":null"#))
    }

    @Test func theLedgerKeepsNoSessionToken() {
        let text = BallotLedger.identityText(Identity(userId: "u1", roles: ["admins"], sessionToken: "r:secret"))
        #expect(!text.contains("secret"))
        #expect(text.contains("u1") && text.contains("admins"))
    }
}
