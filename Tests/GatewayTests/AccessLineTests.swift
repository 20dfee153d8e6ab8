import HTTPServer
import Testing
@testable import GatewayCore

struct AccessLineTests {
    @Test func theURLHasItsQueryWithThePasswordMasked() {
        let request = HTTPRequest(method: "GET", path: "/parse/login",
                                  query: [QueryItem(name: "username", value: "ann"), QueryItem(name: "password", value: "s3cret")])
        #expect(AccessLine.url(request) == "/parse/login?username=ann&password=********")
        #expect(AccessLine.url(HTTPRequest(method: "GET", path: "/parse/classes/Cat")) == "/parse/classes/Cat")
    }
}
