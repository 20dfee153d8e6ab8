import Foundation
import ParseWire
import Testing
@testable import PostsCore

/// Push times as numbers: parse-server refuses one a JavaScript `Date` cannot hold, and takes any positive
/// expiration interval.
@Suite struct PushRequestTimeTests {
    static let now = Date(timeIntervalSince1970: 1_796_047_371)

    static func request(_ fields: [String: JSONValue]) throws(ParseError) -> PushRequest {
        var body = fields
        body["channels"] = .array([])
        return try PushRequest(body, now: now)
    }

    @Test(arguments: ["push_time", "expiration_time"], [1e300, -1e300, 8.64e12 + 1])
    func aTimeBeyondJavaScriptsDatesIsRefused(field: String, seconds: Double) {
        let error = #expect(throws: ParseError.self) { _ = try Self.request([field: .number(seconds)]) }
        #expect(error?.code == .pushMisconfigured)
    }

    @Test func theLastTimeJavaScriptHoldsIsTaken() throws {
        let push = try Self.request(["expiration_time": .number(8.64e12)])
        #expect(push.expirationDate == ParseDate.string(from: Date(timeIntervalSince1970: 8.64e12)))
    }

    @Test func anIntervalReachingPastThoseDatesNeverExpires() throws {
        let push = try Self.request(["expiration_interval": .number(1e300)])
        #expect(push.expirationDate == ParseDate.string(from: Date(timeIntervalSince1970: 8.64e12)))
        let near = try Self.request(["expiration_interval": .number(60)])
        #expect(near.expirationDate == ParseDate.string(from: Self.now.addingTimeInterval(60)))
    }
}
