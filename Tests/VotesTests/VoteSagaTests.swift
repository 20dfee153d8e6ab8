import Contracts
import ParseWire
import Runtime
import Testing
@testable import VotesCore

@Suite struct VoteSagaTests {
    private let ballot = Ballot(ballotId: "00000000-0000-0000-0000-000000000001", requestId: "r1", voter: .anonymous,
                                vote: CastVote(className: "Cat", objectId: "a", field: "votes", kind: .increment, value: 1))

    private func result(error: ParseError? = nil, total: Double? = 11, sequence: Int? = 11) -> BallotResult {
        BallotResult(ballotId: ballot.ballotId, error: error, amount: sequence == nil ? 0 : 1, total: total,
                     sequence: sequence, updatedAt: total == nil ? nil : "2026-11-30T14:02:51.492Z")
    }

    @Test func aNewBallotIsRecordedPendingAndThenSentToPosts() {
        var saga = VoteSaga(ballot, recorded: false)
        #expect(saga.needsRecording && !saga.goesToPosts)
        #expect(saga.recorded(existing: nil) == .nothingYet)
        #expect(saga.state == .pending)
        #expect(saga.goesToPosts && !saga.needsRecording)
    }

    @Test func anAppliedBallotIsAnsweredBeforeItIsMarked() {
        var saga = VoteSaga(ballot, recorded: false)
        _ = saga.recorded(existing: nil)
        let applied = AppliedBallot(total: 11, updatedAt: "2026-11-30T14:02:51.492Z")
        #expect(saga.answered(result()) == .answer(.success(applied)))
        #expect(saga.state == .applied(applied))
        #expect(saga.marked() == .nothingYet)
        #expect(saga.state == .settled)
    }

    @Test func aRefusedBallotIsAnsweredOnlyOnceMarked() {
        var saga = VoteSaga(ballot, recorded: false)
        _ = saga.recorded(existing: nil)
        let refusal = ParseError(.objectNotFound, "Object not found.")
        #expect(saga.answered(result(error: refusal, total: nil, sequence: nil)) == .nothingYet)
        #expect(saga.state == .refused(refusal))
        #expect(saga.marked() == .answer(.failure(refusal)))
        #expect(saga.state == .settled)
    }

    @Test func aRefusedBallotWhoseMarkFailedFailsAndStaysForTheRecovery() {
        var saga = VoteSaga(ballot, recorded: false)
        _ = saga.recorded(existing: nil)
        _ = saga.answered(result(error: ParseError(.objectNotFound, "Object not found."), total: nil, sequence: nil))
        #expect(saga.interrupted() == .failure)
        #expect(saga.state == .interrupted)
    }

    @Test func aLikeThatChangedNothingIsAnsweredUnchanged() {
        var saga = VoteSaga(ballot, recorded: false)
        _ = saga.recorded(existing: nil)
        let unchanged = AppliedBallot(total: 3, updatedAt: "2026-11-30T14:02:51.492Z")
        #expect(saga.answered(result(total: 3, sequence: nil)) == .answer(.success(unchanged)))
        #expect(saga.state == .unchanged(unchanged))
        #expect(saga.marked() == .nothingYet)
    }

    @Test func aRecoveredBallotIsNotRecordedAgainButSentToPosts() {
        var saga = VoteSaga(ballot, recorded: true)
        #expect(saga.state == .recovered)
        #expect(!saga.needsRecording && !saga.goesToPosts)
        #expect(saga.recorded(existing: .pending(ballot)) == .nothingYet)
        #expect(saga.goesToPosts)
    }

    @Test func aRequestIdAlreadyInTheLedgerIsAnsweredWithWhatIsThere() {
        var saga = VoteSaga(ballot, recorded: false)
        let found = BallotLedger.Existing.applied(ballot, AppliedBallot(total: 4, updatedAt: "x"))
        #expect(saga.recorded(existing: found) == .existing(found))
        #expect(saga.state == .duplicate)
        #expect(!saga.goesToPosts)
    }

    @Test func anUnreachablePostsFailsThePendingBallotAndLeavesItPending() {
        var saga = VoteSaga(ballot, recorded: false)
        _ = saga.recorded(existing: nil)
        #expect(saga.interrupted() == .failure)
        #expect(saga.state == .interrupted)
    }

    @Test func anAnsweredBallotStaysAnsweredWhenItsMarkFails() {
        var saga = VoteSaga(ballot, recorded: false)
        _ = saga.recorded(existing: nil)
        _ = saga.answered(result())
        #expect(saga.interrupted() == .nothingYet)
    }

    @Test func aBallotPostsLeftOutFailsOnceTheRoundIsMarked() {
        var saga = VoteSaga(ballot, recorded: false)
        _ = saga.recorded(existing: nil)
        #expect(saga.answered(nil) == .nothingYet)
        #expect(saga.state == .unanswered)
        #expect(saga.marked() == .failure)
    }
}
