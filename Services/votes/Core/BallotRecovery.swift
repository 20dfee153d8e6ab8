import Runtime

/// Completes ballots left pending: the process died between recording a ballot and marking it applied, or `posts`
/// did not answer in time and nobody retried. `posts` applies a ballot id once, so sending it again is safe: a
/// ballot it already has is only marked (and gets its one event) here.
struct BallotRecovery: Sendable {
    let ledger: BallotLedger
    let batcher: BallotBatcher
    let configuration: VotesConfiguration
    let logger: Logger

    func run() async {
        while !Task.isCancelled {
            // A cancelled wait is the host's stop: leave at once rather than start a round.
            do { try await Task.sleep(for: .seconds(1)) } catch { return }
            do {
                let stale = try await ledger.pending(olderThan: configuration.recoveryAge)
                guard !stale.isEmpty else { continue }
                logger.info("completing pending ballots", ["count": String(stale.count)])
                await withTaskGroup(of: Void.self) { group in
                    for ballot in stale { group.addTask { _ = try? await batcher.submit(ballot, recorded: true) } }
                }
            } catch {
                logger.warning("ballot recovery failed; retrying", ["error": "\(error)"])
            }
        }
    }
}
