import Contracts
import HTTPServer
import Testing
@testable import GatewayCore

@Suite struct AccessCheckTests {
    static let appId = "app"
    static let masterKey = "master"

    private func check(clientKeys: ClientKeys = ClientKeys(), masterKey: String? = masterKey) throws -> AccessCheck {
        AccessCheck(applicationId: Self.appId, masterKey: masterKey,
                    masterKeyIPs: try IPAllowList(["127.0.0.1", "::1"]), clientKeys: clientKeys)
    }

    private func credentials(_ headers: [(String, String)], body: [String: String] = [:]) -> RequestCredentials {
        RequestCredentials(headers: HTTPHeaders(headers), bodyFields: body)
    }

    @Test func missingApplicationIdIsUnauthorized() throws {
        #expect(try check().evaluate(credentials([]), remoteAddress: "127.0.0.1") == .unauthorized)
    }

    @Test(arguments: ["wrong", "", "app ", "APP", "ap"])
    func wrongApplicationIdIsUnauthorized(appId: String) throws {
        let sent = credentials([("X-Parse-Application-Id", appId)])
        #expect(try check().evaluate(sent, remoteAddress: "127.0.0.1") == .unauthorized)
    }

    @Test func wrongApplicationIdIsUnauthorizedEvenWithTheMasterKey() throws {
        let sent = credentials([("X-Parse-Application-Id", "wrong"), ("X-Parse-Master-Key", Self.masterKey)])
        #expect(try check().evaluate(sent, remoteAddress: "127.0.0.1") == .unauthorized)
    }

    @Test func applicationIdAloneIsAnAnonymousClient() throws {
        let sent = credentials([("x-parse-application-id", Self.appId)])
        #expect(try check().evaluate(sent, remoteAddress: "203.0.113.9") == .allowed(.anonymous))
    }

    @Test func applicationIdMayComeFromTheBody() throws {
        let sent = credentials([], body: ["_ApplicationId": Self.appId])
        #expect(try check().evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(.anonymous))
    }

    @Test(arguments: ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
    func masterKeyFromAnAllowedAddressIsMaster(address: String) throws {
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", Self.masterKey)])
        #expect(try check().evaluate(sent, remoteAddress: address) == .allowed(.master))
    }

    @Test func masterKeyMayComeFromTheBody() throws {
        let sent = credentials([], body: ["_ApplicationId": Self.appId, "_MasterKey": Self.masterKey])
        #expect(try check().evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(.master))
    }

    @Test(arguments: ["10.0.0.5", "2001:db8::1", "", "127.0.0.2"])
    func masterKeyFromAnotherAddressIsUnauthorized(address: String) throws {
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", Self.masterKey)])
        #expect(try check().evaluate(sent, remoteAddress: address) == .unauthorized)
    }

    @Test(arguments: ["wrong", "maste", "master2", ""])
    func wrongMasterKeyContinuesAsAClient(key: String) throws {
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", key),
                                ("X-Parse-Session-Token", "r:tok")])
        #expect(try check().evaluate(sent, remoteAddress: "10.0.0.5") == .allowed(Identity(sessionToken: "r:tok")))
    }

    @Test func noMasterKeyConfiguredMeansNoMasterAccess() throws {
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", Self.masterKey)])
        #expect(try check(masterKey: nil).evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(.anonymous))
    }

    @Test func clientKeysConfiguredRequireOne() throws {
        let access = try check(clientKeys: ClientKeys(restAPIKey: "rest"))
        let sent = credentials([("X-Parse-Application-Id", Self.appId)])
        #expect(access.evaluate(sent, remoteAddress: "127.0.0.1") == .unauthorized)
    }

    @Test(arguments: [
        ("X-Parse-Client-Key", "client"), ("X-Parse-REST-API-Key", "rest"),
        ("X-Parse-Javascript-Key", "js"), ("X-Parse-Windows-Key", "dotnet"),
    ])
    func anyMatchingClientKeyIsAccepted(header: String, value: String) throws {
        let access = try check(clientKeys: ClientKeys(clientKey: "client", restAPIKey: "rest", javascriptKey: "js",
                                                      dotNetKey: "dotnet"))
        let sent = credentials([("X-Parse-Application-Id", Self.appId), (header, value)])
        #expect(access.evaluate(sent, remoteAddress: "10.0.0.5") == .allowed(.anonymous))
    }

    @Test(arguments: [("_ClientKey", "client"), ("_JavaScriptKey", "js")])
    func clientKeysMayComeFromTheBody(field: String, value: String) throws {
        let access = try check(clientKeys: ClientKeys(clientKey: "client", javascriptKey: "js"))
        let sent = credentials([], body: ["_ApplicationId": Self.appId, field: value])
        #expect(access.evaluate(sent, remoteAddress: "10.0.0.5") == .allowed(.anonymous))
    }

    @Test(arguments: [
        ("X-Parse-REST-API-Key", "wrong"), ("X-Parse-REST-API-Key", "res"), ("X-Parse-Client-Key", "rest"),
        ("X-Parse-Javascript-Key", "rest"),
    ])
    func aWrongOrMismatchedClientKeyIsUnauthorized(header: String, value: String) throws {
        let access = try check(clientKeys: ClientKeys(restAPIKey: "rest"))
        let sent = credentials([("X-Parse-Application-Id", Self.appId), (header, value)])
        #expect(access.evaluate(sent, remoteAddress: "127.0.0.1") == .unauthorized)
    }

    @Test func oneMatchingKeyIsEnoughAmongWrongOnes() throws {
        let access = try check(clientKeys: ClientKeys(clientKey: "client", restAPIKey: "rest"))
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Client-Key", "nope"),
                                ("X-Parse-REST-API-Key", "rest")])
        #expect(access.evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(.anonymous))
    }

    @Test func masterKeyBypassesClientKeys() throws {
        let access = try check(clientKeys: ClientKeys(restAPIKey: "rest"))
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", Self.masterKey)])
        #expect(access.evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(.master))
    }

    @Test func wrongMasterKeyStillNeedsAClientKey() throws {
        let access = try check(clientKeys: ClientKeys(restAPIKey: "rest"))
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", "wrong")])
        #expect(access.evaluate(sent, remoteAddress: "127.0.0.1") == .unauthorized)
    }

    @Test func sessionTokenIsCarriedIntoTheIdentity() throws {
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Session-Token", "r:header")])
        #expect(try check().evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(Identity(sessionToken: "r:header")))
    }

    /// The master key wins; the token stays in the identity unresolved, for `/users/me` and `/logout`.
    @Test func masterKeyWinsOverASessionToken() throws {
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", Self.masterKey),
                                ("X-Parse-Session-Token", "r:tok")])
        #expect(try check().evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(Identity(isMaster: true, sessionToken: "r:tok")))
    }

    @Test func readOnlyMasterKeyIsItsOwnIdentity() throws {
        var access = try check()
        access.readOnlyMasterKey = "reader"
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", "reader")])
        // Not limited to the master key's addresses, as in parse-server.
        #expect(access.evaluate(sent, remoteAddress: "203.0.113.9") == .allowed(Identity(isReadOnlyMaster: true)))
        #expect(try check().evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(.anonymous))
        let master = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Master-Key", Self.masterKey)])
        #expect(access.evaluate(master, remoteAddress: "127.0.0.1") == .allowed(.master))
    }

    @Test func sessionTokenMayComeFromTheBody() throws {
        let sent = credentials([("X-Parse-Application-Id", Self.appId)], body: ["_SessionToken": "r:body"])
        #expect(try check().evaluate(sent, remoteAddress: "127.0.0.1") == .allowed(Identity(sessionToken: "r:body")))
    }

    @Test func headersWinOverBodyFields() {
        let sent = credentials([("X-Parse-Application-Id", "fromHeader"), ("X-Parse-Session-Token", "r:h")],
                               body: ["_ApplicationId": "fromBody", "_SessionToken": "r:b"])
        #expect(sent.applicationId == "fromHeader")
        #expect(sent.sessionToken == "r:h")
    }

    @Test func sessionTokenWithClientKeyIsCarried() throws {
        let access = try check(clientKeys: ClientKeys(javascriptKey: "js"))
        let sent = credentials([("X-Parse-Application-Id", Self.appId), ("X-Parse-Javascript-Key", "js"),
                                ("X-Parse-Session-Token", "r:tok")])
        #expect(access.evaluate(sent, remoteAddress: "10.1.1.1") == .allowed(Identity(sessionToken: "r:tok")))
    }

    @Test(arguments: [("abc", "abc", true), ("abc", "abd", false), ("abc", "ab", false), ("", "", true),
                      ("ab", "abc", false), ("", "a", false)])
    func constantTimeComparison(a: String, b: String, equal: Bool) {
        #expect(ConstantTime.equals(a, b) == equal)
    }
}
