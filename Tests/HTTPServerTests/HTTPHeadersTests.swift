import HTTPServer
import Testing

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndReturnsTheFirstValue() {
        let headers = HTTPHeaders([("Accept", "a"), ("X-Other", "x"), ("ACCEPT", "b")])
        #expect(headers["accept"] == "a")
        #expect(headers.values("Accept") == ["a", "b"])
        #expect(headers["missing"] == nil)
        #expect(headers.values("missing").isEmpty)
    }

    @Test func iterationKeepsOrderAndDuplicates() {
        var headers = HTTPHeaders()
        headers.add("B", "1")
        headers.add("a", "2")
        headers.add("b", "3")
        #expect(headers.map { "\($0.name)=\($0.value)" } == ["B=1", "a=2", "b=3"])
    }

    @Test func setReplacesEveryValueInPlaceOfTheFirst() {
        var headers = HTTPHeaders([("X", "1"), ("Y", "2"), ("x", "3")])
        headers.set("x", "new")
        #expect(headers.map { "\($0.name)=\($0.value)" } == ["x=new", "Y=2"])
        headers.set("Z", "9")
        #expect(headers["z"] == "9")
        #expect(headers.count == 3)
    }

    @Test func removeDropsEveryValue() {
        var headers: HTTPHeaders = ["A": "1", "B": "2"]
        headers.add("a", "3")
        headers.remove("A")
        #expect(headers.map(\.name) == ["B"])
    }
}
