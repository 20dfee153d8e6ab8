/// What `BallotBatcher` needs of the ledger: one trip that marks a round and records the next (`BallotLedger`,
/// or an in-memory ledger in the batcher's unit tests).
protocol BallotRecording: Sendable {
    /// Marks `settlement` and records `ballots` pending, all or nothing; returns, keyed by ballot id, what the
    /// ledger holds for each ballot not recorded because its request id was there already.
    func record(_ ballots: [Ballot], settling settlement: BallotLedger.Settlement?) async throws -> [String: BallotLedger.Existing]
    /// Hands the events of `settlement` to the broker before the trip that marks it.
    func publishEarly(_ settlement: BallotLedger.Settlement)
}

extension BallotLedger: BallotRecording {}
