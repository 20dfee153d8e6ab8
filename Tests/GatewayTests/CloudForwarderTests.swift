import HTTPServer
import ParseWire
import Testing
@testable import GatewayCore

@Suite struct CloudForwarderTests {
    @Test func functionsAndJobsArePostsOnly() {
        #expect(CloudForwarder.call(method: "POST", path: "functions/hello") == .function("hello"))
        #expect(CloudForwarder.call(method: "POST", path: "jobs/cleanup") == .job("cleanup"))
        #expect(CloudForwarder.call(method: "POST", path: "jobs") == .job(nil))
        #expect(CloudForwarder.call(method: "GET", path: "functions/hello") == nil)
        #expect(CloudForwarder.call(method: "POST", path: "functions/") == nil)
        #expect(CloudForwarder.call(method: "POST", path: "hooks/functions") == nil)
    }

    @Test func paramsMergeTheQueryIntoTheBody() {
        let request = HTTPRequest(method: "POST", path: "/parse/functions/f", query: [QueryItem(name: "b", value: "2")])
        #expect(CloudForwarder.params(request, body: #"{"a":1}"#) == .object(["a": .number(1), "b": .string("2")]))
        #expect(CloudForwarder.params(request, body: nil) == .object(["b": .string("2")]))
    }

    @Test func theMasterKeyNeverReachesATarget() {
        let request = HTTPRequest(method: "POST", path: "/parse/functions/f",
                                  headers: HTTPHeaders([("X-Parse-Master-Key", "secret"), ("User-Agent", "sdk")]))
        #expect(CloudForwarder.headers(request) == ["user-agent": "sdk"])
    }
}
