import Contracts
import Foundation
import ParseWire
import Testing
@testable import VotesCore

@Suite struct VoteEventTests {
    let ballot = Ballot(ballotId: "0d6b2d1e-5f0a-4f7e-8d0c-2b8f3f2f9e10", requestId: "r-1", voter: Identity(userId: "u1"),
                        vote: CastVote(className: "Cat", objectId: "QtjcqDbaAi", field: "votes", kind: .increment, value: 1))

    /// What the ledger writes to the outbox for an applied ballot: its routing key and its text.
    private func written(eventId: String, ballot: Ballot, amount: Double, total: Double, sequence: Int,
                         permissionsVersion: String? = nil,
                         time: Date = Date()) -> (id: String, routingKey: String, payload: String) {
        let event = ballot.event(amount: amount, total: total, sequence: sequence, permissionsVersion: permissionsVersion)
        return (eventId, event.routingKey, event.cloudEventText(id: eventId, time: ParseDate.string(from: time)))
    }

    @Test func aCastIsACloudEventWithTheBallotTheTotalAndTheSequence() throws {
        let event = written(eventId: "6f1c5a0e-3d2b-4a57-9a33-0d9f1f0d2b11", ballot: ballot, amount: 1,
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
        #expect(data["permissionsVersion"] == nil, "a ballot answered without a version has none in its event")
    }

    /// `live` judges a vote event under the class's permissions `posts` applied the ballot under, as it does an
    /// object event.
    @Test func theEventNamesThePermissionsItsBallotWasAppliedUnder() throws {
        let event = written(eventId: "e", ballot: ballot, amount: 1, total: 2, sequence: 2, permissionsVersion: "9f3a")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as? [String: Any])
        #expect((json["data"] as? [String: Any])?["permissionsVersion"] as? String == "9f3a")
    }

    @Test func aNegativeAmountIsARetractionAndAnAnonymousVoterIsNull() throws {
        var anonymous = ballot
        anonymous.voter = .anonymous
        let event = written(eventId: "e", ballot: anonymous, amount: -1, total: 3, sequence: 5)
        #expect(event.routingKey == "vote.retracted.Cat")
        #expect(event.payload.contains(#""type":"vote.retracted.v1""#))
        #expect(event.payload.contains(#""voter":null"#))
    }

    @Test func theHandWrittenEventIsWhatTheEncoderWrote() throws {
        let time = Date(timeIntervalSince1970: 1_780_000_000.25)
        var odd = ballot
        odd.requestId = "quote\" back\\ slash/ tab\t é"
        for (sample, amount) in [(ballot, 1.0), (odd, -1.0), (Ballot(ballotId: "b", requestId: "r", voter: .anonymous, vote: ballot.vote), 2.5)] {
            let version = amount > 0 ? "v\"\(amount)" : nil
            let event = written(eventId: "e1", ballot: sample, amount: amount, total: 1e20, sequence: 7,
                                permissionsVersion: version, time: time)
            var members: [String: JSONValue] = [
                "ballotId": .string(sample.ballotId), "className": .string("Cat"), "objectId": .string("QtjcqDbaAi"),
                "field": .string("votes"), "amount": .number(amount), "total": .number(1e20), "sequence": .number(7),
                "voter": sample.voter.userId.map(JSONValue.string) ?? .null, "requestId": .string(sample.requestId),
            ]
            if let version { members["permissionsVersion"] = .string(version) }
            let data: JSONValue = .object(members)
            var expected = CloudEvent(id: "e1", source: "/parse/votes", type: amount < 0 ? "vote.retracted.v1" : "vote.cast.v1",
                                      time: ParseDate.string(from: time), subject: "Cat/QtjcqDbaAi", data: data)
            expected.correlationid = sample.requestId
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let decodedMine = try JSONSerialization.jsonObject(with: Data(event.payload.utf8)) as? NSDictionary
            let decodedTheirs = try JSONSerialization.jsonObject(with: encoder.encode(expected)) as? NSDictionary
            #expect(decodedMine == decodedTheirs, "\(event.payload)")
        }
    }

    /// What the publisher and the replay write (`VoteCast.cloudEventText`) is what a consumer decodes back.
    @Test func theEventTextDecodesToTheSameTypedEvent() throws {
        for amount in [1.0, -1.0, 2.5] {
            let vote = VoteCast(ballotId: "b1", className: "Cat", objectId: "QtjcqDbaAi", field: "votes", amount: amount,
                                total: 12, sequence: 3, voter: amount > 2 ? nil : "u1", requestId: "r\"1",
                                permissionsVersion: amount > 0 ? "5e0c" : nil)
            let text = vote.cloudEventText(id: "e1", time: "2026-11-30T14:02:51.492Z")
            let decoded = try JSONDecoder().decode(CloudEvent<VoteCast>.self, from: Data(text.utf8))
            #expect(decoded.data == vote)
            #expect(decoded.correlationid == vote.requestId)
            #expect(decoded.id == "e1" && decoded.time == "2026-11-30T14:02:51.492Z" && decoded.subject == "Cat/QtjcqDbaAi")
            #expect(decoded.type == (amount < 0 ? VoteRetracted.type : VoteCast.type))
            #expect(vote.routingKey == (amount < 0 ? "vote.retracted.Cat" : "vote.cast.Cat"))
        }
    }

    @Test func theVoterTextIsIdentitysCodableForm() throws {
        for identity in [Identity.anonymous, Identity(userId: "u\"1", roles: ["a", "b"]), Identity(isMaster: true, isReadOnlyMaster: true)] {
            let decoded = try JSONDecoder().decode(Identity.self, from: Data(BallotLedger.identityText(identity).utf8))
            #expect(decoded == identity)
        }
        #expect(BallotLedger.identityText(.anonymous) == #"{"isMaster":false,"isReadOnlyMaster":false,"roles":[]}"#)
    }

    @Test func theLedgerKeepsNoSessionToken() {
        let text = BallotLedger.identityText(Identity(userId: "u1", roles: ["admins"], sessionToken: "r:secret"))
        #expect(!text.contains("secret"))
        #expect(text.contains("u1") && text.contains("admins"))
    }
}
