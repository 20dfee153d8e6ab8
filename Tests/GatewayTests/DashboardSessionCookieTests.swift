import Foundation
import Testing
@testable import GatewayCore

@Suite struct DashboardSessionCookieTests {
    let cookies = DashboardSessionCookie(secret: "myMasterKey", sessionLength: 600)

    @Test func anIssuedCookieNamesItsUserAndATokenOnlyTheKeyCanMake() throws {
        let cookie = cookies.issue(user: "ann", readOnly: false)
        let session = try #require(cookies.session(cookie))
        #expect(session.user == "ann" && !session.readOnly)
        #expect(session.csrfToken.count == 64 && !cookie.contains(session.csrfToken))
        let other = DashboardSessionCookie(secret: "anotherKey", sessionLength: 600)
        #expect(other.session(cookie) == nil, "signed with another master key")
        #expect(cookies.session(cookies.issue(user: "ann", readOnly: false))?.csrfToken != session.csrfToken)
    }

    @Test func aChangedCookieIsRefused() {
        let cookie = cookies.issue(user: "ann", readOnly: true)
        #expect(cookies.session(cookie)?.readOnly == true)
        var parts = cookie.split(separator: ".").map(String.init)
        parts[2] = "w" + parts[2].dropFirst()   // read-only to read-write
        #expect(cookies.session(parts.joined(separator: ".")) == nil)
        parts = cookie.split(separator: ".").map(String.init)
        parts[0] = String(Int(parts[0])! + 100_000)   // a longer life
        #expect(cookies.session(parts.joined(separator: ".")) == nil)
        #expect(cookies.session("") == nil && cookies.session("a.b.c.d") == nil && cookies.session(cookie + "x") == nil)
    }

    @Test func anExpiredOrLoggedOutCookieIsRefused() {
        let old = cookies.issue(user: "ann", readOnly: false, now: Date(timeIntervalSinceNow: -601))
        #expect(cookies.session(old) == nil)
        let cookie = cookies.issue(user: "ann", readOnly: false)
        cookies.logOut(cookie)
        #expect(cookies.session(cookie) == nil)
        #expect(cookies.session(cookies.issue(user: "ann", readOnly: false)) != nil)
    }

    @Test func theCookieIsFoundAmongOthers() {
        #expect(DashboardSessionCookie.value(in: ["a=1; parse_dashboard_session=abc.def; b=2"]) == "abc.def")
        #expect(DashboardSessionCookie.value(in: ["a=1", "parse_dashboard_session=x"]) == "x")
        #expect(DashboardSessionCookie.value(in: ["xparse_dashboard_session=y"]) == nil)
    }

    @Test func hmacMatchesRFC4231() {
        // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
        let jefe = DashboardSessionCookie(secret: "Jefe", sessionLength: 60)
        #expect(jefe.mac("what do ya want for nothing?") == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
