@testable import AuthCore
import ParseWire
import Testing

struct AuthDataTests {
    private func authData(_ json: String) throws -> AuthData? {
        try AuthData.parse(JSONValue.parse(json)!)
    }

    @Test func emptyIsAbsentAndIdsAreNormalised() throws {
        #expect(try authData("{}") == nil)
        let parsed = try #require(try authData(#"{"facebook":{"id":8675309},"anonymous":{"id":"u-1"},"github":null}"#))
        #expect(parsed.identities.map { "\($0.provider)=\($0.id)" } == ["anonymous=u-1", "facebook=8675309"])
        #expect(parsed.providerNames == "anonymous,facebook,github")
        #expect(parsed.canLogIn)
        #expect(try authData(#"{"anonymous":{"token":"x"}}"#)?.canLogIn == false)
    }

    @Test func changesIgnoreAnonymousAndUnchangedProviders() throws {
        let stored: [String: JSONValue] = ["anonymous": .object(["id": .string("a")]), "facebook": .object(["id": .string("f")])]
        let request = try #require(try authData(#"{"anonymous":{"id":"b"},"facebook":{"id":"f"},"github":{"id":"g"}}"#))
        #expect(request.changes(from: stored).entries.keys.sorted() == ["github"])
        let unlink = try #require(try authData(#"{"anonymous":null}"#))
        #expect(unlink.applied(to: stored).keys.sorted() == ["facebook"])
    }

    @Test func unknownAndDisabledProvidersAreUnsupported() async throws {
        var providers = AuthProviders()
        #expect(providers.provider("anonymous") != nil)
        #expect(providers.provider("myoauth") == nil)
        providers.enableAnonymousUsers = false
        #expect(providers.provider("anonymous") == nil)
        await #expect(throws: AuthProviders.unsupported) {
            try await providers.validate(try #require(try authData(#"{"anonymous":{"id":"x"}}"#)))
        }
        // Unlinking a provider needs no check, even one that is switched off.
        try await providers.validate(try #require(try authData(#"{"anonymous":null}"#)))
    }
}
