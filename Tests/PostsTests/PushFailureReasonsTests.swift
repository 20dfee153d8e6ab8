import ParseWire
import Testing
@testable import PostsCore

/// Why devices failed, counted per reason in `_PushStatus.errorMessage`, without the row growing per device.
@Suite struct PushFailureReasonsTests {
    static func counts(_ failures: [JSONValue]) -> [String: Double] {
        Dictionary(uniqueKeysWithValues: failures.compactMap { item -> (String, Double)? in
            guard let reason = item.objectValue?["reason"]?.stringValue,
                  let count = item.objectValue?["count"]?.numberValue else { return nil }
            return (reason, count)
        })
    }

    @Test func reasonsAreCountedAndAMissingOneIsNamed() {
        var failures: [JSONValue] = []
        PushStatusUpdates.count(reason: "expired", in: &failures)
        PushStatusUpdates.count(reason: "expired", in: &failures)
        PushStatusUpdates.count(reason: nil, in: &failures)
        PushStatusUpdates.count(reason: "", in: &failures)
        PushStatusUpdates.count(reason: "HTTP 410 from api.push.example.com: $gone", in: &failures)
        #expect(Self.counts(failures) == ["expired": 2, "no reason given": 2, "HTTP 410 from api.push.example.com: $gone": 1])
    }

    @Test func reasonsBeyondTheLimitAreCountedTogether() {
        var failures: [JSONValue] = []
        for index in 0..<(PushStatusUpdates.reasonLimit + 5) {
            PushStatusUpdates.count(reason: "device \(index) refused", in: &failures)
        }
        PushStatusUpdates.count(reason: "device 0 refused", in: &failures)
        let counts = Self.counts(failures)
        #expect(failures.count == PushStatusUpdates.reasonLimit + 1)
        #expect(counts["other reasons"] == 5)
        #expect(counts["device 0 refused"] == 2)
    }

    @Test func aLongReasonIsCut() {
        var failures: [JSONValue] = []
        PushStatusUpdates.count(reason: String(repeating: "x", count: 500), in: &failures)
        #expect(Self.counts(failures).keys.first?.count == 200)
    }
}
