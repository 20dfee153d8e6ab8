import Runtime
import Synchronization
import Testing
@testable import Messaging

/// Tasks that prefer a connection's executor, on a connection whose broker does not answer: its thread keeps
/// trying to connect and pauses between attempts, which is where a broker outage leaves it. The connected path is
/// every `CommandServer` test against the test stack's broker (`BrokerTests`).
@Suite(.timeLimit(.minutes(1))) struct ConnectionExecutorTests {
    private final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    private func unreachableConnection() throws -> AMQPConnection {
        // Nothing listens on the discard port: each attempt is refused at once.
        AMQPConnection(url: try AMQPURL("amqp://guest:guest@127.0.0.1:9/"), options: .init(name: "executor-test"),
                       logger: Logger(service: "messaging-tests", level: .error))
    }

    @Test func aTaskRunsOnTheConnectionsThreadAndComesBackThereAfterWaiting() async throws {
        let connection = try unreachableConnection()
        connection.start()
        let onLoop = await Task(executorPreference: connection.executor) {
            let before = connection.mailbox.onLoopThread
            // Resumed by the clock's thread, then run where the task prefers.
            try? await Task.sleep(for: .milliseconds(20))
            return [before, connection.mailbox.onLoopThread]
        }.value
        #expect(onLoop == [true, true])
        await connection.stop()
    }

    @Test func tasksLeftWhenTheConnectionStopsStillFinishElsewhere() async throws {
        let connection = try unreachableConnection()
        connection.start()
        let parked = Mutex<CheckedContinuation<Void, Never>?>(nil)
        let waiting = Task(executorPreference: connection.executor) {
            await withCheckedContinuation { continuation in parked.withLock { $0 = continuation } }
            return connection.mailbox.onLoopThread
        }
        try await TestBroker.waitUntil { parked.withLock { $0 != nil } }
        await connection.stop()
        parked.withLock { $0 }?.resume()
        #expect(await waiting.value == false)
        let startedAfterStop = await Task(executorPreference: connection.executor) { connection.mailbox.onLoopThread }.value
        #expect(startedAfterStop == false)
    }

    @Test func aTaskThatKeepsYieldingLeavesTheOthersTheirTurn() async throws {
        let connection = try unreachableConnection()
        connection.start()
        let released = Flag()
        let spinner = Task(executorPreference: connection.executor) {
            var turns = 0
            while !released.value.load(ordering: .acquiring) {
                turns += 1
                await Task.yield()
            }
            return turns
        }
        let other = await Task(executorPreference: connection.executor) {
            released.value.store(true, ordering: .releasing)
            return connection.mailbox.onLoopThread
        }.value
        #expect(other)
        #expect(await spinner.value > 0)
        await connection.stop()
    }
}
