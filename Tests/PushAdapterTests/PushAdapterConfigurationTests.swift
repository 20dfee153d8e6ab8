import Testing
import Contracts
@testable import PushAdapterCore

@Suite struct PushAdapterConfigurationTests {
    @Test func endpointsArePerDeviceTypeWithADefault() throws {
        let endpoints = try PushEndpoints("ios=http://a.example/apns, *=https://b.example/any")
        #expect(endpoints.url(for: "ios")?.absoluteString == "http://a.example/apns")
        #expect(endpoints.url(for: "android")?.absoluteString == "https://b.example/any")
    }

    @Test func withoutADefaultAnUnknownTypeHasNoEndpoint() throws {
        #expect(try PushEndpoints("android=http://fcm.example/").url(for: "ios") == nil)
        #expect(try PushEndpoints("").url(for: "ios") == nil)
    }

    @Test(arguments: ["ios", "ios=", "=http://x", "ios=ftp://x", "ios=not a url"])
    func malformedEntriesAreRefused(text: String) {
        #expect(throws: (any Error).self) { try PushEndpoints(text) }
    }

    @Test func recentIdsForgetTheOldestFirst() {
        var ids = RecentIds(capacity: 2)
        ids.insert("a")
        ids.insert("b")
        ids.insert("a")
        #expect(ids.contains("a") && ids.contains("b"))
        ids.insert("c")
        #expect(!ids.contains("a"))
        #expect(ids.contains("b") && ids.contains("c"))
    }
}
