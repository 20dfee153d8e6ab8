import Contracts
import Messaging
import ParseWire

/// Sends ballots to `posts` and settles them in the ledger, in rounds: the ballots that arrive while a round is
/// under way go together in a later one, whatever their object, so many votes cost one `posts` transaction (one
/// row update per object) and one ledger transaction, and a lone vote waits for nothing. At most
/// `maxRounds` rounds run at once.
actor BallotBatcher {
    typealias Outcome = Result<AppliedBallot, ParseError>

    private struct Waiting {
        var ballot: Ballot
        var continuations: [CheckedContinuation<Outcome, any Error>]
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
            let results = await apply(batch.map { $0.ballot })
            for item in batch {
                let result = results.flatMap { $0[item.ballot.ballotId].map(Result.success) ?? .failure(BatchError.noOutcome) }
                for continuation in item.continuations { continuation.resume(with: result) }
            }
        }
        rounds -= 1
    }

    /// Awaits `posts` and the ledger without holding the actor, so new ballots keep queueing meanwhile.
    private nonisolated func apply(_ ballots: [Ballot]) async -> Result<[String: Outcome], any Error> {
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
        do {
            let applied: AppliedIncrements = try await client.send(
                ApplyIncrementBatch.type, request, to: .posts, requestId: ballots[0].requestId, identity: .anonymous,
                timeout: configuration.applyTimeout)
            try await ledger.settle(ballots, outcomes: applied.outcomes)
            var outcomes: [String: Outcome] = [:]
            for outcome in applied.outcomes {
                if let error = outcome.error {
                    outcomes[outcome.ballotId] = .failure(error)
                } else if let total = outcome.total, let updatedAt = outcome.updatedAt {
                    outcomes[outcome.ballotId] = .success(AppliedBallot(total: total, updatedAt: updatedAt))
                }
            }
            return .success(outcomes)
        } catch let error as ParseError {
            // A refusal of the whole command is every ballot's final answer.
            do {
                try await ledger.settle(ballots, outcomes: ballots.map { .init(ballotId: $0.ballotId, error: error) })
            } catch {
                return .failure(error)
            }
            return .success(Dictionary(ballots.map { ($0.ballotId, .failure(error)) }, uniquingKeysWith: { first, _ in first }))
        } catch {
            return .failure(error)
        }
    }

    enum BatchError: Error { case noOutcome }
}
