import Contracts
import Foundation
import HTTPServer
import ParseWire
import Runtime
import Testing
@testable import GatewayCore

@Suite struct MaintenanceKeyTests {
    private let access = AccessCheck(applicationId: "app", masterKey: "master", masterKeyIPs: .loopback,
                                     clientKeys: ClientKeys(restAPIKey: "rest"), maintenanceKey: "maint")

    private func evaluate(_ headers: [(String, String)], from address: String = "127.0.0.1") -> AccessCheck.Outcome {
        access.evaluate(RequestCredentials(headers: HTTPHeaders([("X-Parse-Application-Id", "app")] + headers)),
                        remoteAddress: address)
    }

    @Test func theKeyFromLoopbackActsAsTheMasterKeyAndSaysSo() {
        #expect(evaluate([("X-Parse-Maintenance-Key", "maint")]) == .allowed(Identity(isMaster: true, isMaintenance: true)))
        #expect(evaluate([("X-Parse-Maintenance-Key", "maint")], from: "::1") != .unauthorized)
    }

    @Test func fromElsewhereOrWrongItIsNoKeyAtAll() {
        // Without a client key the request is refused as any client's would be; with one it goes on as a client's.
        #expect(evaluate([("X-Parse-Maintenance-Key", "maint")], from: "203.0.113.9") == .unauthorized)
        #expect(evaluate([("X-Parse-Maintenance-Key", "maint"), ("X-Parse-REST-API-Key", "rest")], from: "203.0.113.9")
                == .allowed(Identity()))
        #expect(evaluate([("X-Parse-Maintenance-Key", "master"), ("X-Parse-REST-API-Key", "rest")]) == .allowed(Identity()))
    }

    @Test(arguments: ["schemas", "schemas/Cat", "hooks/functions", "push", "jobs/x", "cloud_code/jobs", "scriptlog",
                      "serverInfo", "purge/Cat", "aggregate/Cat", "loginAs", "push_audiences"])
    func administrationRoutesAreTheMasterKeysAlone(path: String) {
        #expect(MaintenanceScope.identity(Identity(isMaster: true, isMaintenance: true), method: "GET", path: path) == nil)
    }

    @Test func dataRoutesActAsMasterAndFunctionsAsAClient() {
        let maintenance = Identity(isMaster: true, isMaintenance: true)
        #expect(MaintenanceScope.identity(maintenance, method: "PUT", path: "classes/Cat/1")?.isMaster == true)
        #expect(MaintenanceScope.identity(maintenance, method: "GET", path: "config")?.isMaster == true)
        #expect(MaintenanceScope.identity(maintenance, method: "PUT", path: "config") == nil)
        let function = MaintenanceScope.identity(maintenance, method: "POST", path: "functions/hello")
        #expect(function?.isMaster == false && function?.isMaintenance == true)
    }

    @Test func theIdentityWritesTheFlagOnlyWhenSet() throws {
        let plain = try String(decoding: JSONEncoder.sorted.encode(Identity()), as: UTF8.self)
        #expect(plain == #"{"isMaster":false,"isReadOnlyMaster":false,"roles":[]}"#)
        let maintenance = try JSONEncoder.sorted.encode(Identity(isMaster: true, isMaintenance: true))
        #expect(String(decoding: maintenance, as: UTF8.self) == #"{"isMaintenance":true,"isMaster":true,"isReadOnlyMaster":false,"roles":[]}"#)
        #expect(try JSONDecoder().decode(Identity.self, from: maintenance).isMaintenance)
    }
}

@Suite struct ErrorSanitizerTests {
    private let sanitizer = ErrorSanitizer(logger: Logger(service: "test", level: .error))

    private func body(_ response: HTTPResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func aForbiddenErrorSaysPermissionDenied() {
        let refused = HTTPResponse.json(status: 400, #"{"code":119,"error":"Permission denied for action create on class Cat."}"#)
        #expect(body(sanitizer.sanitize(refused, path: "classes/Cat")) == #"{"code":119,"error":"Permission denied"}"#)
        let master = HTTPResponse.json(status: 403, #"{"error":"unauthorized: master key is required"}"#)
        #expect(body(sanitizer.sanitize(master, path: "schemas")) == #"{"error":"Permission denied"}"#)
        // The code found where the search ends: as the body's last bytes, and not in a shorter body.
        let codeLast = HTTPResponse.json(status: 400, #"{"error":"no access to secret","code":119}"#)
        #expect(body(sanitizer.sanitize(codeLast, path: "classes/Cat")) == #"{"code":119,"error":"Permission denied"}"#)
        let short = HTTPResponse.json(status: 400, #"{"code":11"#)
        #expect(sanitizer.sanitize(short, path: "classes/Cat") == short)
    }

    @Test func batchItemsAreSanitizedAndOtherErrorsKeepTheirWords() {
        let batch = HTTPResponse.json(status: 200, #"[{"success":{"objectId":"a"}},{"error":{"code":119,"error":"This user is not allowed to query secret on class Cat"}}]"#)
        let sanitized = body(sanitizer.sanitize(batch, path: "batch"))
        #expect(sanitized.contains(#""error":"Permission denied""#) && sanitized.contains(#""objectId":"a""#))
        #expect(!sanitized.contains("secret"))
        let notFound = HTTPResponse.json(status: 404, #"{"code":101,"error":"Object not found."}"#)
        #expect(sanitizer.sanitize(notFound, path: "classes/Cat/x") == notFound)
        let ok = HTTPResponse.json(status: 200, #"{"code":119,"error":"stored text"}"#)
        #expect(sanitizer.sanitize(ok, path: "classes/Cat/x") == ok)
    }
}

@Suite struct FileURLDomainsTests {
    private func file(_ url: String) -> JSONValue { .object(["__type": .string("File"), "name": .string("a"), "url": .string(url)]) }

    private func code(_ domains: FileURLDomains, _ value: JSONValue) -> String? {
        do { try domains.check(value); return nil } catch { return error.message }
    }

    @Test func theDefaultAllowsEveryHost() {
        #expect(code(.any, file("http://169.254.169.254/")) == nil)
        #expect(code(FileURLDomains(allowed: ["*"]), file("http://x.test/")) == nil)
    }

    @Test func hostsMatchExactlyOrAsSubdomainsWhateverTheCase() {
        let domains = FileURLDomains(allowed: ["CDN.example.com", "*.files.example.org"])
        #expect(code(domains, file("https://cdn.example.com/a")) == nil)
        #expect(code(domains, file("https://eu.files.example.org/a")) == nil)
        #expect(code(domains, file("https://notcdn.example.com/a")) == "File URL domain 'notcdn.example.com' is not allowed.")
        #expect(code(domains, file("https://files.example.org/a")) == "File URL domain 'files.example.org' is not allowed.")
        #expect(code(domains, .object(["a": .array([.object(["b": file("nope")])])])) == "Invalid file URL.")
        #expect(code(domains, .object(["__type": .string("File"), "name": .string("a")])) == nil)
        #expect(code(FileURLDomains(allowed: []), file("https://cdn.example.com/a")) != nil)
    }

    @Test func theSettingsReadAListOrTheOptionsObject() throws {
        let list = try FileURLDomains.fromEnvironment(Environment(["PARSE_SERVER_FILE_UPLOAD_ALLOWED_FILE_URL_DOMAINS": "a.test, b.test"]))
        #expect(list.allowed == ["a.test", "b.test"])
        let none = try FileURLDomains.fromEnvironment(Environment(["PARSE_SERVER_FILE_UPLOAD_OPTIONS": #"{"allowedFileUrlDomains":[]}"#]))
        #expect(none.allowed == [])
        #expect(try FileURLDomains.fromEnvironment(Environment([:])) == .any)
    }
}

@Suite struct RouteAllowListTests {
    @Test func patternsMatchTheWholeRoute() throws {
        let list = try RouteAllowList(["classes/Chat", "classes/Public.*", "functions/getMenu"])
        #expect(list.allows("classes/Chat") && list.allows("classes/PublicPost/abc") && list.allows("functions/getMenu"))
        #expect(!list.allows("classes/ChatRoom") && !list.allows("classes/Chat/abc") && !list.allows("users"))
        #expect(!(try RouteAllowList([])).allows("classes/Chat"))
    }

    @Test func everyItemOfABatchMustBeAllowed() throws {
        let list = try RouteAllowList(["batch", "classes/Chat"])
        let fields = try #require(JSONValue.parse(#"{"requests":[{"method":"POST","path":"/parse/classes/Chat"},{"method":"GET","path":"/parse/users"}]}"#)?.objectValue)
        #expect(list.refusal(path: "batch", method: "POST", fields: fields, mountPath: "/parse")?.message
                == "Route 'users' is not allowed by the routeAllowList option.")
        #expect(list.refusal(path: "classes/Chat", method: "GET", fields: nil, mountPath: "/parse") == nil)
    }

    @Test func theSettingIsAJSONArrayOrAList() throws {
        #expect(try RouteAllowList.fromEnvironment(Environment([:])) == nil)
        let list = try #require(try RouteAllowList.fromEnvironment(Environment(["PARSE_SERVER_ROUTE_ALLOW_LIST": "users, login"])))
        #expect(list.allows("login") && !list.allows("logout"))
        let none = try #require(try RouteAllowList.fromEnvironment(Environment(["PARSE_SERVER_ROUTE_ALLOW_LIST": "[]"])))
        #expect(!none.allows("login"))
        #expect(throws: ConfigurationError.self) { try RouteAllowList.fromEnvironment(Environment(["PARSE_SERVER_ROUTE_ALLOW_LIST": "(unclosed"])) }
    }

    @Test func theReadOnlyMasterKeyMayBeLimitedToAddresses() throws {
        let access = AccessCheck(applicationId: "app", masterKey: "master", masterKeyIPs: .loopback, clientKeys: ClientKeys(),
                                 readOnlyMasterKey: "ro", readOnlyMasterKeyIPs: try IPAllowList(["10.0.0.0/8"]))
        let sent = RequestCredentials(headers: HTTPHeaders([("X-Parse-Application-Id", "app"), ("X-Parse-Master-Key", "ro")]))
        #expect(access.evaluate(sent, remoteAddress: "10.1.2.3") == .allowed(Identity(isReadOnlyMaster: true)))
        #expect(access.evaluate(sent, remoteAddress: "127.0.0.1") == .unauthorized)
    }
}
