import Runtime
import Testing
@testable import GatewayCore

@Suite struct IPAllowListTests {
    @Test func exactAddresses() throws {
        let list = try IPAllowList(["127.0.0.1", "::1"])
        #expect(list.allows("127.0.0.1"))
        #expect(list.allows("::1"))
        #expect(!list.allows("127.0.0.2"))
        #expect(!list.allows("::2"))
        #expect(!list.allows(""))
    }

    @Test func emptyListAllowsNothing() throws {
        let list = try IPAllowList([])
        #expect(!list.allows("127.0.0.1"))
        #expect(!list.allows("::1"))
    }

    @Test func ipv4Ranges() throws {
        let list = try IPAllowList(["10.0.0.0/8", "192.168.1.0/24", "172.16.5.4/32"])
        #expect(list.allows("10.0.0.0"))
        #expect(list.allows("10.255.255.255"))
        #expect(!list.allows("11.0.0.1"))
        #expect(list.allows("192.168.1.77"))
        #expect(!list.allows("192.168.2.1"))
        #expect(list.allows("172.16.5.4"))
        #expect(!list.allows("172.16.5.5"))
        #expect(!list.allows("::1"))
    }

    @Test func rangeWithHostBitsSetStillMatchesItsNetwork() throws {
        let list = try IPAllowList(["192.168.1.77/24"])
        #expect(list.allows("192.168.1.1"))
        #expect(!list.allows("192.168.0.1"))
    }

    @Test func everyIPv4() throws {
        let list = try IPAllowList(["0.0.0.0/0"])
        #expect(list.allows("1.2.3.4"))
        #expect(list.allows("255.255.255.255"))
        #expect(list.allows("::ffff:8.8.8.8"))
        #expect(!list.allows("::1"))
        #expect(!list.allows("2001:db8::1"))
    }

    @Test func everyIPv6() throws {
        let list = try IPAllowList(["::/0"])
        #expect(list.allows("::1"))
        #expect(list.allows("2001:db8::1"))
        #expect(list.allows("fe80::1%eth0"))
        #expect(!list.allows("1.2.3.4"))
    }

    @Test func mappedIPv4MatchesIPv4Entries() throws {
        let list = try IPAllowList(["127.0.0.1", "10.0.0.0/8"])
        #expect(list.allows("::ffff:127.0.0.1"))
        #expect(list.allows("::ffff:10.20.30.40"))
        #expect(!list.allows("::ffff:11.0.0.1"))
        #expect(!list.allows("::ffff:127.0.0.2"))
    }

    @Test(arguments: ["10.0.0.0/33", "10.0.0.0/-1", "10.0.0/8", "10.0.0.0.0/8", "300.0.0.0/8", "abc/8",
                      "10.0.0.0/x", "10.0.0.0/", "/8", "fe80::/10", "10.0.0.0/8/8"])
    func invalidRangesThrow(entry: String) {
        #expect(throws: ConfigurationError.self) { try IPAllowList([entry]) }
    }

    @Test func oneInvalidEntryRejectsTheList() {
        #expect(throws: ConfigurationError.self) { try IPAllowList(["127.0.0.1", "10.0.0.0/40"]) }
    }

    @Test(arguments: ["localhost", "not-an-ip", "999.1.1.1"])
    func invalidExactEntriesThrow(entry: String) {
        #expect(throws: ConfigurationError.self) { try IPAllowList([entry]) }
    }
}
