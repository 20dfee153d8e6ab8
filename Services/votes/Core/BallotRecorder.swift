/// Records ballots in the ledger in rounds: the ballots that arrive while a round is being written go together in
/// the next one, so many votes cost one INSERT and one commit (one disk flush) instead of one each.
actor BallotRecorder {
    private struct Waiting {
        var ballot: Ballot
        var continuation: CheckedContinuation<BallotLedger.Existing?, any Error>
    }

    private let ledger: BallotLedger
    private let maxBatch: Int
    private let maxRounds: Int
    private var waiting: [Waiting] = []
    private var rounds = 0

    init(ledger: BallotLedger, maxBatch: Int, maxRounds: Int) {
        self.ledger = ledger
        self.maxBatch = maxBatch
        self.maxRounds = maxRounds
    }

    /// Nil when `ballot` is now recorded; else what the ledger already has under its request id.
    func record(_ ballot: Ballot) async throws -> BallotLedger.Existing? {
        try await withCheckedThrowingContinuation { continuation in
            waiting.append(Waiting(ballot: ballot, continuation: continuation))
            if rounds < maxRounds {
                rounds += 1
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !waiting.isEmpty {
            let batch = Array(waiting.prefix(maxBatch))
            waiting.removeFirst(batch.count)
            do {
                let existing = try await ledger.record(batch.map { $0.ballot })
                for item in batch { item.continuation.resume(returning: existing[item.ballot.requestId]) }
            } catch {
                for item in batch { item.continuation.resume(throwing: error) }
            }
        }
        rounds -= 1
    }
}
