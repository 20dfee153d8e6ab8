@testable import AuthCore
import Contracts
import Query
import ParseWire
import Testing

struct RequestParsingTests {
    private func request(_ method: String = "GET", query: [String: String] = [:], body: String? = nil) -> AuthRequest {
        AuthRequest(Command(type: RESTRequest.type, requestId: "r", identity: .anonymous,
                            payload: RESTRequest(method: method, path: "login", query: query, body: body,
                                                 serverURL: "http://127.0.0.1:1337/parse")))
    }

    private func credentialsError(_ request: AuthRequest) -> (Int, String)? {
        do { _ = try LoginHandler.Credentials(request); return nil } catch let error as ParseError {
            return (error.code.rawValue, error.message)
        } catch { return (-999, "\(error)") }
    }

    @Test func queryStringCredentialsStayStrings() throws {
        let credentials = try LoginHandler.Credentials(request(query: ["username": #"{"$ne":null}"#, "password": #"{"$ne":null}"#]))
        #expect(credentials.username == #"{"$ne":null}"#)
        #expect(credentials.password == #"{"$ne":null}"#)
    }

    @Test func loginErrorsInParseServersOrder() {
        #expect(credentialsError(request("POST", body: "{}"))! == (200, "username/email is required."))
        #expect(credentialsError(request("POST", body: #"{"username":"a"}"#))! == (201, "password is required."))
        #expect(credentialsError(request("POST", body: #"{"username":{"$gt":""},"password":"x"}"#))! == (101, "Invalid username/password."))
        #expect(credentialsError(request("POST", body: #"{"username":"a","password":["x"]}"#))! == (101, "Invalid username/password."))
        #expect(credentialsError(request("POST", body: #"{"email":"a@b.c","password":"x"}"#)) == nil)
    }

    @Test func queryOptionsFromTheQueryStringOrABody() throws {
        let options = try TableQuery.options(request(query: ["where": #"{"username":"a"}"#, "limit": "5", "skip": "2",
                                                             "order": "-createdAt,username", "count": "1"]))
        #expect(options.whereClause == ["username": .string("a")])
        #expect(options.limit == 5)
        #expect(options.skip == 2)
        #expect(options.order == ["-createdAt", "username"])
        #expect(options.count)
        #expect(throws: ParseError(.invalidQuery, "Invalid parameter for query: foo")) {
            try TableQuery.options(request(query: ["foo": "1"]))
        }
        let posted = try TableQuery.options(request("POST", body: #"{"where":{"name":{"$gt":"b"}},"keys":"name"}"#))
        #expect(posted.whereClause == ["name": .object(["$gt": .string("b")])])
        #expect(posted.keys == ["name"])
    }
}
