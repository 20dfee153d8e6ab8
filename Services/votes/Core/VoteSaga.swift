import Contracts
import ParseWire

/// One ballot's way through the vote saga, as a value: recorded `pending` in the ledger, applied or refused by
/// `posts`, then marked in the ledger. Each step takes what a round trip returned and says what the voters waiting
/// for the ballot are told now; `BallotBatcher` runs the round trips. The ledger calls a ballot `pending`,
/// `applied`, `unchanged` or `rejected`; the saga's states follow those, plus the ones that exist only in memory.
struct VoteSaga: Sendable, Equatable {
    /// What the voter gets for an applied or refused ballot; the only outcome type on the votes side.
    typealias Outcome = Result<AppliedBallot, ParseError>

    enum State: Sendable, Equatable {
        /// Not in the ledger yet: the round records it.
        case new
        /// In the ledger already, pending (a retry of a ballot under way, or the recovery): not recorded again.
        case recovered
        /// Recorded pending; the round sends it to `posts`.
        case pending
        /// `posts` applied it: answered at once, marked `applied` with its event in the next ledger trip.
        case applied(AppliedBallot)
        /// A like that changed nothing: answered at once, marked `unchanged`, no event.
        case unchanged(AppliedBallot)
        /// `posts` refused it: answered only once the ledger has marked it `rejected`, because the recovery would
        /// send a still-pending ballot again, and it could pass if its object's ACL changed meanwhile.
        case refused(ParseError)
        /// `posts` answered without this ballot: marked nothing, failed once the round's mark is in.
        case unanswered
        /// Its request id is in the ledger already: answered with what is there, nothing sent.
        case duplicate
        /// Answered and marked.
        case settled
        /// Cut short by an unreachable ledger or `posts`: still pending in the ledger (or never recorded), for a
        /// retry or the recovery to complete.
        case interrupted
    }

    /// What the ballot's waiting voters are told after a step.
    enum Reply: Sendable, Equatable {
        case nothingYet
        case answer(Outcome)
        /// Not recorded: the request id is in the ledger with this ballot.
        case existing(BallotLedger.Existing)
        /// The step's error: the command fails and is retried.
        case failure
    }

    let ballot: Ballot
    private(set) var state: State

    /// `recorded`: the ledger has the ballot pending already.
    init(_ ballot: Ballot, recorded: Bool) {
        self.ballot = ballot
        state = recorded ? .recovered : .new
    }

    var needsRecording: Bool { state == .new }
    var goesToPosts: Bool { state == .pending }

    /// The ledger trip committed; `existing` is what it found under the ballot's request id, if anything.
    mutating func recorded(existing: BallotLedger.Existing?) -> Reply {
        switch state {
        case .new:
            guard let existing else { state = .pending; return .nothingYet }
            state = .duplicate
            return .existing(existing)
        case .recovered:
            state = .pending
            return .nothingYet
        default:
            return .nothingYet
        }
    }

    /// `posts` answered the round; `result` is this ballot's part of it, if it had one.
    mutating func answered(_ result: BallotResult?) -> Reply {
        guard state == .pending else { return .nothingYet }
        guard let result else { state = .unanswered; return .nothingYet }
        if let error = result.error {
            state = .refused(error)
            return .nothingYet
        }
        guard let total = result.total, let updatedAt = result.updatedAt else { state = .unanswered; return .nothingYet }
        let applied = AppliedBallot(total: total, updatedAt: updatedAt)
        state = result.sequence == nil ? .unchanged(applied) : .applied(applied)
        return .answer(.success(applied))
    }

    /// The ledger trip that marks the round committed.
    mutating func marked() -> Reply {
        switch state {
        case .refused(let error):
            state = .settled
            return .answer(.failure(error))
        case .unanswered:
            state = .settled
            return .failure
        case .applied, .unchanged:
            state = .settled
            return .nothingYet
        default:
            return .nothingYet
        }
    }

    /// A round trip (to the ledger or to `posts`) failed: nothing of it committed. A ballot already answered stays
    /// answered (it is durable in `posts`; the recovery marks it); the others fail with the trip's error.
    mutating func interrupted() -> Reply {
        switch state {
        case .applied, .unchanged:
            state = .interrupted
            return .nothingYet
        case .settled, .duplicate, .interrupted:
            return .nothingYet
        default:
            state = .interrupted
            return .failure
        }
    }
}
