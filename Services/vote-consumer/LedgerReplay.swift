import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime

/// Prints, one JSON line each, the events of the ballots the ledger applied in a time range, asked of the votes
/// service page by page (`votes.replay.v1`): the same ids, types, routing data and sequence numbers as the live
/// events, in the same text form (`VoteCast.cloudEventText`), so a consumer that missed some (or starts fresh)
/// can replay and dedupe by id.
struct LedgerReplay: Sendable {
    let options: VoteConsumerOptions
    let url: AMQPURL
    let exchange: String
    let logger: Logger

    func run() async throws {
        let client = RPCClient(url: url, name: "vote-consumer-replay", eventExchange: exchange, logger: logger)
        client.start()
        do {
            let count = try await replay(client)
            await client.stop()
            logger.info("replayed", ["events": String(count)])
        } catch {
            await client.stop()
            throw error
        }
    }

    private func replay(_ client: RPCClient) async throws -> Int {
        // Calls made before the connection is up are refused at once.
        let deadline = ContinuousClock.now + .seconds(10)
        while !client.isConnected && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        var request = ReplayVotes(from: ParseDate.string(from: options.from ?? Date(timeIntervalSince1970: 0)),
                                  to: options.to.map(ParseDate.string(from:)), className: options.className)
        var count = 0
        while true {
            let page: ReplayedVotes = try await client.send(ReplayVotes.type, request, to: .votes,
                                                            requestId: TimeOrderedUUID.string(), identity: .master,
                                                            timeout: .seconds(30))
            for event in page.events {
                print(event.vote.cloudEventText(id: event.id, time: event.time))
            }
            count += page.events.count
            guard let next = page.next else { return count }
            request.after = next
        }
    }
}
