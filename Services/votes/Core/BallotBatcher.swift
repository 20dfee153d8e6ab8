import Contracts
import Messaging
import ParseWire
import Runtime

/// Records ballots, has `posts` apply them and marks them in the ledger, in rounds: the ballots that arrive while a
/// round is under way go together in a later one, whatever their object, so many votes cost one ledger
/// transaction and one `posts` transaction (one row update per object), and a lone vote waits for nothing. At most
/// `maxRounds` rounds run at once.
///
/// A round is two round trips. The first, to the ledger, records the round's new ballots pending and, in the same
/// transaction, marks what `posts` answered for the round before; the second is the `posts` call. A ballot `posts`
/// applied is answered then, before the ledger marks it: it is durable already (pending in the ledger, applied in
/// `posts`, which answers the recovery or a retry with the outcome it kept), so the mark is bookkeeping the voter
/// need not wait for. Its event leaves just before its answer, under the ballot's id, and its outbox row is written
/// with the mark (`BallotLedger.publishEarly`). A refusal is answered once it is marked: sent again by the
/// recovery, a ballot refused for its object's ACL could be applied if the ACL changed meanwhile.
actor BallotBatcher {
    /// What `submit` gets for a ballot.
    enum Answer: Sendable {
        /// Recorded (or recorded before) and sent to `posts`: its outcome.
        case applied(VoteSaga.Outcome)
        /// Not recorded: its request id is in the ledger already, with this ballot.
        case existing(BallotLedger.Existing)
    }

    /// A ballot's saga and the voters waiting for it.
    private struct Waiting: Sendable {
        var saga: VoteSaga
        var continuations: [CheckedContinuation<Answer, any Error>]
        /// The earliest deadline of the requests waiting (nil: none has one).
        var deadline: Deadline?

        mutating func waits(until other: Deadline?) {
            guard let other else { return }
            deadline = deadline.map { min($0, other) } ?? other
        }

        /// Runs one step of the saga and tells the voters what it says; `error` is a failure's cause.
        mutating func step(_ error: any Error = BatchError.noOutcome, _ transition: (inout VoteSaga) -> VoteSaga.Reply) {
            switch transition(&saga) {
            case .nothingYet: return
            case .answer(let outcome):
                if case .success = outcome { VoteMetrics.applied.increment() } else { VoteMetrics.refused.increment() }
                resume(with: .success(.applied(outcome)))
            case .existing(let found):
                VoteMetrics.existing.increment()
                resume(with: .success(.existing(found)))
            case .failure:
                VoteMetrics.failed.increment()
                resume(with: .failure(error))
            }
        }

        private func resume(with result: Result<Answer, any Error>) {
            for continuation in continuations { continuation.resume(with: result) }
        }
    }

    /// A round `posts` answered, to be marked with the next round's recording.
    private struct Unsettled: Sendable {
        var settlement: BallotLedger.Settlement
        var sent: [Waiting]

        mutating func marked(_ result: Result<Void, any Error>) {
            for index in sent.indices {
                switch result {
                case .success: sent[index].step { $0.marked() }
                case .failure(let error): sent[index].step(error) { $0.interrupted() }
                }
            }
        }
    }

    private let ledger: any BallotRecording
    private let client: RPCClient
    private let configuration: VotesConfiguration
    private var maxRounds: Int { configuration.maxRounds }
    private var waiting: [Waiting] = []
    private var rounds = 0
    /// The rounds under way; stopped with the service's background jobs, after its commands have drained.
    nonisolated let roundTasks = OwnedTasks("vote rounds")

    init(ledger: any BallotRecording, client: RPCClient, configuration: VotesConfiguration) {
        self.ledger = ledger
        self.client = client
        self.configuration = configuration
    }

    /// Records `ballot` (unless `recorded`: it is in the ledger, pending) and applies it. Throws when the ledger or
    /// `posts` could not be reached: a recorded ballot stays pending and a retry or the recovery completes it.
    func submit(_ ballot: Ballot, recorded: Bool) async throws -> Answer {
        let deadline = Deadline.current
        return try await withCheckedThrowingContinuation { continuation in
            if let index = waiting.firstIndex(where: { $0.saga.ballot.ballotId == ballot.ballotId }) {
                waiting[index].continuations.append(continuation)
                waiting[index].waits(until: deadline)
            } else {
                waiting.append(Waiting(saga: VoteSaga(ballot, recorded: recorded), continuations: [continuation],
                                       deadline: deadline))
            }
            if rounds < maxRounds {
                rounds += 1
                // The rounds serve every ballot that comes meanwhile, not only this request: detached, so they do
                // not inherit its deadline (`Deadline.current`), which would stop their statements when it passes.
                // They run where the command does when that is its broker connection's thread, and their round
                // trips (the ledger's, the call to `posts`) wait there too.
                if !roundTasks.spawnDetached(on: SocketLoop.current?.taskExecutor, { await self.drain() }) {
                    // The service is stopping (its commands drained first): the ballot stays for a retry.
                    rounds -= 1
                    let refused = waiting.filter { $0.saga.ballot.ballotId == ballot.ballotId }
                    waiting.removeAll { $0.saga.ballot.ballotId == ballot.ballotId }
                    for entry in refused {
                        entry.continuations.forEach { $0.resume(throwing: MessagingError.unavailable) }
                    }
                }
            }
        }
    }

    private func drain() async {
        var unsettled: Unsettled?
        while !waiting.isEmpty || unsettled != nil {
            let batch = Array(waiting.prefix(configuration.maxBatch))
            waiting.removeFirst(batch.count)
            unsettled = await round(batch, marking: unsettled)
        }
        rounds -= 1
    }

    /// Runs without holding the actor, so new ballots keep queueing meanwhile. Returns what is left to mark.
    private nonisolated func round(_ batch: [Waiting], marking previous: Unsettled?) async -> Unsettled? {
        var batch = batch, previous = previous
        if !batch.isEmpty { VoteMetrics.roundBallots.observe(Double(batch.count)) }
        let existing: [String: BallotLedger.Existing]
        do {
            existing = try await ledger.record(batch.filter(\.saga.needsRecording).map(\.saga.ballot),
                                               settling: previous?.settlement)
            previous?.marked(.success(()))
        } catch {
            // Nothing of this trip committed: the earlier round stays pending (the recovery marks it), and this
            // round's new ballots were not recorded.
            previous?.marked(.failure(error))
            for index in batch.indices { batch[index].step(error) { $0.interrupted() } }
            return nil
        }
        for index in batch.indices { batch[index].step { $0.recorded(existing: existing[$0.ballot.ballotId]) } }
        var sent = batch.filter(\.saga.goesToPosts)
        guard !sent.isEmpty else { return nil }
        let ballots = sent.map(\.saga.ballot)
        // posts answers before the earliest voter stops waiting: a database it cannot reach until then is a 503
        // that voter can retry, not a time-out whose outcome it cannot know.
        let earliest = sent.compactMap(\.deadline).min()
        let results: [BallotResult]
        do {
            results = try await Deadline.$current.withValue(earliest) { try await send(ballots).outcomes }
        } catch let error as ParseError where error.code != .timeout && error.code != .connectionFailed {
            // A refusal of the whole command is every ballot's final answer.
            results = ballots.map { .init(ballotId: $0.ballotId, error: error) }
        } catch {
            // posts stopped at the call's deadline (124), or met only transient faults until then (100), and applied
            // nothing, like a call that timed out here: still pending in the ledger: a retry or the recovery
            // completes it.
            for index in sent.indices { sent[index].step(error) { $0.interrupted() } }
            return nil
        }
        var byBallot: [String: BallotResult] = [:]
        for result in results { byBallot[result.ballotId] = result }
        let settlement = BallotLedger.Settlement(ballots: ballots, outcomes: results)
        // The events go before the answers, so a subscriber hears of a vote as its voter does.
        ledger.publishEarly(settlement)
        for index in sent.indices { sent[index].step { $0.answered(byBallot[$0.ballot.ballotId]) } }
        return Unsettled(settlement: settlement, sent: sent)
    }

    private nonisolated func send(_ ballots: [Ballot]) async throws -> BallotsApplied {
        var groups: [BallotTarget: [Ballot]] = [:]
        var order: [BallotTarget] = []
        for ballot in ballots {
            if groups[ballot.target] == nil { order.append(ballot.target) }
            groups[ballot.target, default: []].append(ballot)
        }
        let request = ApplyBallots(groups: order.map { target in
            CounterBallots(className: target.className, objectId: target.objectId, field: target.field,
                            oncePerUser: configuration.oncePerUser.contains(className: target.className, field: target.field),
                            ballots: (groups[target] ?? []).map {
                                .init(ballotId: $0.ballotId, kind: $0.vote.kind, value: $0.vote.value, voter: $0.voter)
                            })
        })
        return try await client.send(ApplyBallots.type, request, to: .posts, requestId: ballots[0].requestId,
                                     identity: .anonymous, timeout: configuration.applyTimeout)
    }

    enum BatchError: Error { case noOutcome }
}
