import HTTPServer

/// The keys and token a request carries, from headers or, as the JavaScript SDK sends them, from body fields
/// (`_ApplicationId`, `_MasterKey`, ...).
struct RequestCredentials: Sendable, Equatable {
    var applicationId: String?
    var masterKey: String?
    var clientKey: String?
    var restAPIKey: String?
    var javascriptKey: String?
    var dotNetKey: String?
    var sessionToken: String?
    /// parse-server reads the maintenance key from its header only.
    var maintenanceKey: String?

    init(headers: HTTPHeaders, bodyFields: [String: String] = [:]) {
        applicationId = headers["X-Parse-Application-Id"] ?? bodyFields["_ApplicationId"]
        masterKey = headers["X-Parse-Master-Key"] ?? bodyFields["_MasterKey"]
        clientKey = headers["X-Parse-Client-Key"] ?? bodyFields["_ClientKey"]
        restAPIKey = headers["X-Parse-REST-API-Key"]
        javascriptKey = headers["X-Parse-Javascript-Key"] ?? bodyFields["_JavaScriptKey"]
        dotNetKey = headers["X-Parse-Windows-Key"]
        sessionToken = headers["X-Parse-Session-Token"] ?? bodyFields["_SessionToken"]
        maintenanceKey = headers["X-Parse-Maintenance-Key"]
    }
}
