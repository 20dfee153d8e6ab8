import HTTPServer
import Synchronization
import Testing

/// Counts the jobs of the tasks that prefer it, and runs them on the shared pool.
private final class CountingExecutor: TaskExecutor {
    let jobs = Atomic<Int>(0)

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .relaxed)
        globalConcurrentExecutor.enqueue(job)
    }
}

@Suite struct SmallRequestExecutorTests {
    @Test func aSmallRequestIsAnsweredOnTheGivenExecutorAndALargeOneOnThePool() async throws {
        let executor = CountingExecutor()
        try await withServer(configure: {
            $0.smallRequestExecutor = executor
            $0.smallRequestBytes = 100
        }) { server, _ in
            let port = server.port
            func post(_ body: String) async throws -> (Int, String) {
                try await blocking {
                    let client = try RawHTTPClient(port: port)
                    try client.send("POST /echo HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
                    let response = try client.readResponse()
                    return (response.status, response.text)
                }
            }
            let large = String(repeating: "x", count: 101)
            let largeAnswer = try await post(large)
            #expect(largeAnswer.0 == 200 && largeAnswer.1 == large)
            #expect(executor.jobs.load(ordering: .relaxed) == 0)
            let smallAnswer = try await post("small")
            #expect(smallAnswer.0 == 200 && smallAnswer.1 == "small")
            #expect(executor.jobs.load(ordering: .relaxed) > 0)
        }
    }
}
