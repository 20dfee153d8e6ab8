import Contracts
import Foundation
import ParseWire

// Encodes and decodes the messages of the hot paths with the messages' coder (JSONValueEncoder/JSONValueDecoder),
// in one run, and prints the CPU time per message beside Foundation's JSONEncoder/JSONDecoder. See bench/json.md.

let identity = Identity(userId: "u8Hk2Lq0Zt", roles: ["role:admins", "role:moderators"], sessionToken: "r:9f0c1e2d3b4a5968")
let getById = Command(type: RESTRequest.type, requestId: "0193a0c4-1b2c-7d3e-8f40-123456789abc", identity: identity,
                      payload: RESTRequest(method: "GET", path: "classes/BenchObject/QtjcqDbaAi", query: [:], body: nil,
                                           serverURL: "http://127.0.0.1:1337/parse",
                                           headers: ["user-agent": "curl/7.88.1", "accept": "*/*"], ip: "127.0.0.1"))
let objectReply = CommandReply<RESTResponse>.success(RESTResponse(
    status: 200, headers: ["Content-Type": "application/json; charset=utf-8"],
    body: #"{"objectId":"QtjcqDbaAi","name":"Tom","votes":11,"createdAt":"2026-11-30T14:02:51.492Z","updatedAt":"2026-11-30T14:02:51.492Z"}"#))
let ballots = ApplyBallots(groups: (0..<4).map { group in
    CounterBallots(className: "Cat", objectId: "obj\(group)", field: "votes", ballots: (0..<8).map { ballot in
        BallotToApply(ballotId: "0193a0c4-1b2c-7d3e-8f40-12345678\(group)\(ballot)ab", kind: .increment, value: 1, voter: identity)
    })
})

let rounds = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 7
let iterations = Int(ProcessInfo.processInfo.environment["BENCH_ITERATIONS"] ?? "") ?? 20_000
/// Only the messages whose name contains it (for a profile of one).
let only = ProcessInfo.processInfo.environment["BENCH_ONLY"] ?? ""

/// The CPU time of this thread, in nanoseconds: unlike the wall clock it does not count the time spent waiting for
/// a core on a busy machine.
func cpuNanoseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

/// The median over `rounds` of the CPU time per call of `body`, in nanoseconds.
@MainActor func measure(_ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<rounds {
        let start = cpuNanoseconds()
        for _ in 0..<iterations { try body() }
        samples.append((cpuNanoseconds() - start) / Double(iterations))
    }
    return samples.sorted()[samples.count / 2]
}

var sink = 0

func row(_ name: String, _ figures: [(String, Double)]) {
    let baseline = figures.last!.1
    var line = name.padding(toLength: 34, withPad: " ", startingAt: 0)
    for (label, nanoseconds) in figures {
        line += "  \(label) " + String(format: "%8.0f ns %5.2fx", nanoseconds, nanoseconds / baseline)
    }
    print(line)
}

@MainActor func bench<T: Codable>(_ name: String, _ value: T) throws {
    guard only.isEmpty || name.contains(only) else { return }
    let bytes = try JSONValueEncoder().encode(value)
    let foundationEncoder = JSONEncoder()
    foundationEncoder.outputFormatting = [.withoutEscapingSlashes]
    row("\(name) encode (\(bytes.count) B)", [
        ("coder", try measure { sink &+= try JSONValueEncoder().encode(value).count }),
        ("Foundation", try measure { sink &+= try foundationEncoder.encode(value).count }),
    ])
    let data = Data(bytes)
    row("\(name) decode", [
        ("coder", try measure { _ = try JSONValueDecoder().decode(T.self, from: bytes); sink &+= 1 }),
        ("Foundation", try measure { _ = try JSONDecoder().decode(T.self, from: data); sink &+= 1 }),
    ])
}

print("release: \(!_isDebugAssertConfiguration()), \(rounds) rounds of \(iterations) calls, median CPU time per call;"
      + " ratios to Foundation's coders")
try bench("rest.v1 command (get by id)", getById)
try bench("rest.v1 reply (an object)", objectReply)
try bench("votes.apply.v1 (4 x 8 ballots)", ballots)
if sink == 42 { print("") }
