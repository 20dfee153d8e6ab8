import Contracts
import Messaging
import ParseWire

/// Sends ballots to `posts` and settles them in the ledger, in rounds: the ballots that arrive while a round is
/// under way go together in a later one, whatever their object, so many votes cost one `posts` transaction (one
/// row update per object) and one ledger transaction, and a lone vote waits for nothing. At most
/// `maxRounds` rounds run at once. A round's applied ballots are answered as soon as `posts` applied them, before
/// the ledger marks them (see `apply`).
actor BallotBatcher {
    typealias Outcome = Result<AppliedBallot, ParseError>

    private struct Waiting {
        var ballot: Ballot
        var continuations: [CheckedContinuation<Outcome, any Error>]

        func resume(with result: Result<Outcome, any Error>) {
            for continuation in continuations { continuation.resume(with: result) }
        }
    }

    private let ledger: BallotLedger
    private let client: RPCClient
    private let configuration: VotesConfiguration
    private var maxRounds: Int { configuration.maxRounds }
    private var waiting: [Waiting] = []
    private var rounds = 0

    init(ledger: BallotLedger, client: RPCClient, configuration: VotesConfiguration) {
        self.ledger = ledger
        self.client = client
        self.configuration = configuration
    }

    /// Applies `ballot` (recorded pending in the ledger) and returns what the voter gets. Throws when `posts` could
    /// not be reached or the ledger not updated: the ballot stays pending and a retry or the recovery completes it.
    func submit(_ ballot: Ballot) async throws -> Outcome {
        try await withCheckedThrowingContinuation { continuation in
            if let index = waiting.firstIndex(where: { $0.ballot.ballotId == ballot.ballotId }) {
                waiting[index].continuations.append(continuation)
            } else {
                waiting.append(Waiting(ballot: ballot, continuations: [continuation]))
            }
            if rounds < maxRounds {
                rounds += 1
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let batch = Array(waiting.prefix(configuration.maxBatch))
            waiting.removeFirst(batch.count)
            await apply(batch)
        }
        rounds -= 1
    }

    /// Awaits `posts` and the ledger without holding the actor, so new ballots keep queueing meanwhile. A ballot
    /// `posts` applied is answered before the ledger marks it: it is durable already, pending in the ledger and
    /// applied in `posts`, which answers the recovery (or a retry) with the same outcome, so the mark is only
    /// bookkeeping the voter need not wait for. A refusal is answered once it is marked: sent again by the
    /// recovery, it could be applied if the object's ACL changed meanwhile.
    private nonisolated func apply(_ batch: [Waiting]) async {
        let ballots = batch.map(\.ballot)
        let outcomes: [AppliedIncrements.Outcome]
        do {
            outcomes = try await send(ballots).outcomes
        } catch let error as ParseError {
            // A refusal of the whole command is every ballot's final answer.
            outcomes = ballots.map { .init(ballotId: $0.ballotId, error: error) }
        } catch {
            // Still pending in the ledger: a retry or the recovery completes it.
            for item in batch { item.resume(with: .failure(error)) }
            return
        }
        var answers: [String: Outcome] = [:]
        for outcome in outcomes {
            if let error = outcome.error {
                answers[outcome.ballotId] = .failure(error)
            } else if let total = outcome.total, let updatedAt = outcome.updatedAt {
                answers[outcome.ballotId] = .success(AppliedBallot(total: total, updatedAt: updatedAt))
            }
        }
        var unanswered: [Waiting] = []
        for item in batch {
            if let answer = answers[item.ballot.ballotId], case .success = answer {
                item.resume(with: .success(answer))
            } else {
                unanswered.append(item)
            }
        }
        do {
            try await ledger.settle(ballots, outcomes: outcomes)
            for item in unanswered {
                item.resume(with: answers[item.ballot.ballotId].map(Result.success) ?? .failure(BatchError.noOutcome))
            }
        } catch {
            for item in unanswered { item.resume(with: .failure(error)) }
        }
    }

    private nonisolated func send(_ ballots: [Ballot]) async throws -> AppliedIncrements {
        var groups: [BallotTarget: [Ballot]] = [:]
        var order: [BallotTarget] = []
        for ballot in ballots {
            if groups[ballot.target] == nil { order.append(ballot.target) }
            groups[ballot.target, default: []].append(ballot)
        }
        let request = ApplyIncrementBatch(groups: order.map { target in
            ApplyIncrements(className: target.className, objectId: target.objectId, field: target.field,
                            oncePerUser: configuration.oncePerUser.contains(className: target.className, field: target.field),
                            ballots: (groups[target] ?? []).map {
                                .init(ballotId: $0.ballotId, kind: $0.vote.kind, value: $0.vote.value, voter: $0.voter)
                            })
        })
        return try await client.send(ApplyIncrementBatch.type, request, to: .posts, requestId: ballots[0].requestId,
                                     identity: .anonymous, timeout: configuration.applyTimeout)
    }

    enum BatchError: Error { case noOutcome }
}
