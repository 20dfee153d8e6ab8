import Messaging
import Runtime
import ServiceKit
import Storage
import Testing
@testable import VotesCore

/// The ballot recovery loop is a background job of the host's, so a stop of the service ends it.
@Suite struct RecoveryJobTests {
    @Test func theVotesServiceDeclaresItsRecoveryLoopAndAStopEndsIt() async throws {
        let logger = Logger(service: "test", level: .error)
        // Neither opens a connection until used; the loop's first step is a wait, so the stop comes before any query.
        let pool = PostgresPool(configuration: PostgresConfiguration(url: "postgres://postgres@127.0.0.1:1/none"), logger: logger)
        let client = RPCClient(url: try AMQPURL("amqp://guest:guest@127.0.0.1:1/"), name: "test", eventExchange: "x", logger: logger)
        let configuration = VotesService.Configuration(
            service: try ServiceConfiguration.fromEnvironment(.votes, Environment([:])), votes: VotesConfiguration())
        let jobs = VotesService.build(configuration: configuration, bus: client, database: pool).jobs
        #expect(jobs.map(\.name) == ["ballot recovery", "vote rounds"])

        let running = BackgroundJobs.start(jobs, logger: logger)
        try await Task.sleep(for: .milliseconds(50))
        // Counted rather than timed: a job that ignored its cancellation is still running when the stop's wait
        // runs out, and a machine slowed by other work cannot make a returning loop look stuck.
        let stillRunning = await running.stop()
        #expect(stillRunning == 0, "a job did not return after its task was cancelled")
    }
}
