import Contracts
import Foundation
import Messaging
import ParseWire
import Runtime
import Testing
@testable import GatewayCore

/// The session cache answers only while its lease runs, and never keeps an answer that may predate a change it was
/// not told about.
@Suite struct SessionCacheTests {
    private let start = ContinuousClock.now
    private let alice = Identity(userId: "alice", roles: ["role:staff"], sessionToken: "r:a")

    private func leased(continued: Bool = false) -> SessionCache {
        let cache = SessionCache(timeToLive: .seconds(60))
        cache.trust(until: start + .seconds(3), continued: continued, now: start)
        return cache
    }

    @Test func withoutALeaseNothingIsCachedOrAnswered() {
        let cache = SessionCache(timeToLive: .seconds(60))
        cache.store("r:a", alice, lookupStarted: start, now: start)
        #expect(cache.count == 0)
        #expect(cache.lookup("r:a", now: start) == nil)
    }

    @Test func answersWhileTheLeaseRunsAndNotAfter() {
        let cache = leased()
        cache.store("r:a", alice, lookupStarted: start, now: start + .milliseconds(1))
        #expect(cache.lookup("r:a", now: start + .seconds(2)) == alice)
        #expect(cache.lookup("r:a", now: start + .seconds(3)) == nil)
        #expect(cache.count == 0)
    }

    @Test func aLeaseThatDoesNotContinueTheOneBeforeStartsEmpty() {
        let cache = leased()
        cache.store("r:a", alice, lookupStarted: start, now: start)
        cache.trust(until: start + .seconds(4), continued: true, now: start + .seconds(1))
        #expect(cache.lookup("r:a", now: start + .seconds(1)) == alice)
        // auth took the lease back (an eviction went unconfirmed): whatever was cached may be stale.
        cache.trust(until: start + .seconds(5), continued: false, now: start + .seconds(2))
        #expect(cache.lookup("r:a", now: start + .seconds(2)) == nil)
    }

    @Test func aLeaseRenewedAfterItRanOutStartsEmpty() {
        let cache = leased(continued: true)
        cache.store("r:a", alice, lookupStarted: start, now: start)
        cache.trust(until: start + .seconds(8), continued: true, now: start + .seconds(5))
        #expect(cache.lookup("r:a", now: start + .seconds(5)) == nil)
    }

    @Test func anAnswerLookedUpBeforeTheLeaseStartedIsNotKept() {
        let cache = leased()
        cache.store("r:a", alice, lookupStarted: start - .milliseconds(1), now: start + .milliseconds(1))
        #expect(cache.count == 0)
    }

    @Test func anAnswerLookedUpBeforeAnEvictionIsNotKept() {
        let cache = leased()
        cache.evict(userId: "alice", now: start + .milliseconds(2))
        cache.store("r:a", alice, lookupStarted: start + .milliseconds(1), now: start + .milliseconds(3))
        #expect(cache.count == 0)
        cache.rolesChanged(now: start + .milliseconds(5))
        cache.store("r:a", alice, lookupStarted: start + .milliseconds(4), now: start + .milliseconds(6))
        #expect(cache.count == 0)
        cache.store("r:a", alice, lookupStarted: start + .milliseconds(7), now: start + .milliseconds(8))
        #expect(cache.lookup("r:a", now: start + .milliseconds(9)) == alice)
    }

    @Test func anEvictionIsAppliedAndConfirmedToItsSender() throws {
        let cache = leased()
        let bob = Identity(userId: "bob", roles: [], sessionToken: "r:b")
        cache.store("r:a", alice, lookupStarted: start, now: start)
        cache.store("r:b", bob, lookupStarted: start, now: start)
        let command = Command(type: SessionCacheEviction.type, requestId: "req", identity: .master,
                              payload: SessionCacheEviction(userIds: ["alice"]))
        let delivery = Delivery(body: try JSONValueEncoder().encode(command), routingKey: "gateway.sessions.x",
                                correlationId: "c1", replyTo: "amq.rabbitmq.reply-to")
        let reply = try #require(SessionCacheLeaseHolder.apply(delivery, to: cache, logger: Logger(service: "test", level: .error)))
        #expect(reply.routingKey == "amq.rabbitmq.reply-to")
        #expect(reply.correlationId == "c1")
        #expect(try JSONValueDecoder().decode(CommandReply<Empty>.self, from: reply.body).get() == Empty())
        #expect(cache.lookup("r:a", now: start + .seconds(1)) == nil)
        #expect(cache.lookup("r:b", now: start + .seconds(1)) == bob)
    }

    @Test func anUnreadableEvictionEmptiesTheCacheAndIsRefused() throws {
        let cache = leased()
        cache.store("r:a", alice, lookupStarted: start, now: start)
        let delivery = Delivery(body: Array("{}".utf8), routingKey: "gateway.sessions.x", correlationId: "c2",
                                replyTo: "amq.rabbitmq.reply-to")
        let reply = try #require(SessionCacheLeaseHolder.apply(delivery, to: cache, logger: Logger(service: "test", level: .error)))
        #expect(throws: ParseError.self) { try JSONValueDecoder().decode(CommandReply<Empty>.self, from: reply.body).get() }
        #expect(cache.count == 0)
    }
}
