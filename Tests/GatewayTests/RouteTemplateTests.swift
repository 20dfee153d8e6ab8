import Testing
@testable import GatewayCore

@Suite struct RouteTemplateTests {
    @Test(arguments: [
        ("classes/Cat", "classes/:className"),
        ("classes/Cat/abc123", "classes/:className/:objectId"),
        ("classes", "classes"),
        ("classes/Cat/abc/def", "classes/other"),
        ("users/me", "users/me"),
        ("users/xyz", "users/:objectId"),
        ("sessions/me", "sessions/me"),
        ("health", "health"),
        ("health/ready", "health/ready"),
        ("health/whatever", "health/other"),
        ("files/a.txt", "files/:filename"),
        ("files/myAppId/a.txt", "files/:appId/:filename"),
        ("login", "login"),
        ("login/extra", "login/other"),
        ("batch", "batch"),
        ("schemas/Cat", "schemas/:className"),
        ("push/abc", "push/:objectId"),
        ("nothing/here", "unknown"),
        ("", "/"),
    ])
    func templates(_ path: String, _ template: String) {
        #expect(RouteTemplate.of(path) == template)
    }

    @Test func pathsOutsideTheMountShareOneLabel() {
        #expect(RouteTemplate.of(nil) == "outside_mount")
    }

    @Test func randomPathsStayWithinABoundedSet() {
        var seen = Set<String>()
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcXYZ09_/.-%")
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...30, using: &generator)
            seen.insert(RouteTemplate.of(String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })))
        }
        // Random paths hit at most the unknown label, a root and the few `<route>/other` of short words.
        #expect(seen.count <= 4, "\(seen)")
    }

    @Test func unknownMethodsAreOther() {
        #expect(RouteTemplate.method("GET") == "GET")
        #expect(RouteTemplate.method("BREW") == "other")
    }

    @Test func onlyLoopbackAddressesAreLoopback() {
        #expect(InstrumentedResponder.isLoopback("127.0.0.1"))
        #expect(InstrumentedResponder.isLoopback("::1"))
        #expect(InstrumentedResponder.isLoopback("::ffff:127.0.0.1"))
        #expect(!InstrumentedResponder.isLoopback("10.0.0.1"))
        #expect(!InstrumentedResponder.isLoopback(""))
    }
}

@Suite struct RouteTemplateIndexTests {
    @Test func everyTemplateHasOneIndexAndNamesAreDistinct() {
        #expect(Set(RouteTemplate.names).count == RouteTemplate.names.count)
        for path in ["classes/Cat", "users/me", "health/ready", "nothing", "", "login/x", "push/abc"] {
            #expect(RouteTemplate.names[RouteTemplate.index(of: path)] == RouteTemplate.of(path))
        }
        #expect(RouteTemplate.names[RouteTemplate.index(of: nil)] == "outside_mount")
    }

    @Test func deeperPathsOfKnownRoutesAreTheirOther() {
        #expect(RouteTemplate.of("files/a/b/c") == "files/other")
        #expect(RouteTemplate.of("users/me/extra") == "users/other")
        #expect(RouteTemplate.of("classes//x") == "classes/:className/:objectId")
        #expect(RouteTemplate.of("analytics/requests") == "analytics/requests")
        #expect(RouteTemplate.of("analytics/other") == "analytics/other")
    }

    @Test func methodsMapToTheirLabel() {
        #expect(RouteTemplate.methods[RouteTemplate.methodIndex("DELETE")] == "DELETE")
        #expect(RouteTemplate.methods[RouteTemplate.methodIndex("brew")] == "other")
    }
}
