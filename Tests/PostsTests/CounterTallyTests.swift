import Contracts
import ParseWire
import Testing
@testable import PostsCore

@Suite struct CounterTallyTests {
    typealias Ballot = BallotToApply

    func tally(likes: Set<CounterTally.Like> = []) -> CounterTally {
        CounterTally(schema: ClassSchema(className: "Photo"),
                     rows: ["p1": .init(writers: nil, updatedAt: "2026-01-01T00:00:00.000Z", values: ["likes": 5])],
                     earlier: [:], lastSequences: [:], likes: likes, updatedAt: "2026-11-30T00:00:00.000Z")
    }

    func like(_ id: String, _ user: String?, _ value: Double = 1) -> Ballot {
        Ballot(ballotId: id, kind: .increment, value: value, voter: Identity(userId: user))
    }

    @Test func aSecondLikeAndARetractionWithoutALikeChangeNothing() {
        var tally = tally()
        tally.decide(CounterBallots(className: "Photo", objectId: "p1", field: "likes", oncePerUser: true, ballots: [
            like("a", "u1"), like("b", "u1"), like("c", "u2"), like("d", "u1", -1), like("e", "u1", -1), like("f", "u3", -1),
        ]))
        let byId = Dictionary(uniqueKeysWithValues: tally.outcomes.map { ($0.ballotId, $0) })
        #expect(byId["a"]?.amount == 1 && byId["a"]?.total == 6 && byId["a"]?.sequence == 1)
        #expect(byId["b"]?.amount == 0 && byId["b"]?.total == 6 && byId["b"]?.sequence == nil)
        #expect(byId["b"]?.updatedAt == "2026-11-30T00:00:00.000Z")
        #expect(byId["c"]?.total == 7 && byId["c"]?.sequence == 2)
        #expect(byId["d"]?.amount == -1 && byId["d"]?.total == 6 && byId["d"]?.sequence == 3)
        #expect(byId["e"]?.sequence == nil && byId["f"]?.sequence == nil && byId["f"]?.total == 6)
        #expect(tally.totals[.init(objectId: "p1", field: "likes")] == 6)
        #expect(tally.likesAdded.map(\.like.voter) == ["u2"] && tally.likesAdded.map(\.ballotId) == ["c"])
        #expect(tally.likesRemoved.isEmpty)
        // Every ballot is kept, the ones that changed nothing too, so a retry is answered alike.
        #expect(tally.recorded.count == 6)
    }

    @Test func anUnchangedLikeBeforeAnyChangeKeepsTheObjectsDate() {
        let target = CounterTally.Target(objectId: "p1", field: "likes")
        var tally = tally(likes: [.init(target: target, voter: "u1")])
        tally.decide(CounterBallots(className: "Photo", objectId: "p1", field: "likes", oncePerUser: true,
                                     ballots: [like("a", "u1"), like("b", "u1", -1), like("c", nil)]))
        #expect(tally.outcomes[0].sequence == nil && tally.outcomes[0].updatedAt == "2026-01-01T00:00:00.000Z")
        #expect(tally.outcomes[1].amount == -1 && tally.outcomes[1].total == 4)
        #expect(tally.outcomes[2].error?.code == .objectNotFound)
        #expect(tally.likesRemoved == [.init(target: target, voter: "u1")])
    }

    @Test func withoutTheRuleEveryBallotCounts() {
        var tally = tally()
        tally.decide(CounterBallots(className: "Photo", objectId: "p1", field: "likes",
                                     ballots: [like("a", "u1"), like("b", "u1"), like("c", nil, 3)]))
        #expect(tally.outcomes.map(\.total) == [6, 7, 10])
        #expect(tally.outcomes.map(\.sequence) == [1, 2, 3])
        #expect(tally.likesAdded.isEmpty)
    }

    @Test func aBallotThatWouldTakeTheCounterBeyondADoubleIsRefused() {
        var tally = tally()
        tally.decide(CounterBallots(className: "Photo", objectId: "p1", field: "likes", ballots: [
            like("a", "u1", 1e308), like("b", "u1", 1e308), like("c", "u1", 1),
            Ballot(ballotId: "d", kind: .set, value: -1e308, voter: Identity(userId: "u1")),
        ]))
        let outOfRange: ParseError? = ParseError(.incorrectType, "Number out of range.")
        let errors: [ParseError?] = tally.outcomes.map(\.error)
        #expect(errors == [nil, outOfRange, nil, outOfRange])
        let totals: [Double?] = tally.outcomes.map(\.total)
        let most: Double = 1e308
        #expect(totals == [most, nil, most, nil])
        #expect(tally.totals[.init(objectId: "p1", field: "likes")] == most)
    }
}
