@testable import AuthCore
import Contracts
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

    @Test func queryOptions() throws {
        let options = try QueryOptions(request(query: ["where": #"{"username":"a"}"#, "limit": "5", "skip": "2",
                                                       "order": "-createdAt,username", "count": "1"]))
        #expect(options.constraints == ["username": .string("a")])
        #expect(options.limit == 5)
        #expect(options.skip == 2)
        #expect(options.order.map(\.field) == ["createdAt", "username"])
        #expect(options.order.map(\.descending) == [true, false])
        #expect(options.count)
        #expect(throws: ParseError(.invalidQuery, "Invalid parameter for query: foo")) {
            try QueryOptions(request(query: ["foo": "1"]))
        }
        #expect(throws: ParseError.self) { try QueryOptions(request(query: ["order": "a;drop"])) }
        #expect(try QueryOptions.equalityValue(.object(["$eq": .string("x")])) == .string("x"))
        #expect(throws: ParseError.self) { try QueryOptions.equalityValue(.object(["$regex": .string("x")])) }
    }
}
