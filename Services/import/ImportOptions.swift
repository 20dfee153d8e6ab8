import Foundation

/// What to import and where, from the arguments with defaults from the environment.
struct ImportOptions: Sendable {
    struct UsageError: Error { let message: String }

    var serverURL: String
    var applicationId: String
    var masterKey: String?
    var className: String
    var batchSize = 50
    var keepIdentity = true
    var file: String

    init(arguments: [String], environment: [String: String]) throws {
        serverURL = environment["PARSE_SERVER_URL"] ?? "http://127.0.0.1:1337/parse"
        applicationId = environment["PARSE_SERVER_APPLICATION_ID"] ?? "myAppId"
        masterKey = environment["PARSE_SERVER_MASTER_KEY"] ?? "myMasterKey"
        var className: String?, file: String?
        var remaining = arguments[...]
        func value(_ name: String) throws -> String {
            guard let next = remaining.popFirst() else { throw UsageError(message: "\(name) needs a value") }
            return next
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--server": serverURL = try value(argument)
            case "--app-id": applicationId = try value(argument)
            case "--master-key": masterKey = try value(argument)
            case "--class": className = try value(argument)
            case "--batch-size":
                guard let size = Int(try value(argument)), (1...500).contains(size) else {
                    throw UsageError(message: "--batch-size must be a number from 1 to 500")
                }
                batchSize = size
            case "--new-ids": keepIdentity = false
            case "--help", "-h": throw UsageError(message: "")
            default:
                guard !argument.hasPrefix("-"), file == nil else { throw UsageError(message: "unexpected argument \(argument)") }
                file = argument
            }
        }
        guard let className, className.range(of: #"^[A-Za-z][A-Za-z0-9_]*$"#, options: .regularExpression) != nil else {
            throw UsageError(message: "--class <ClassName> is required (letters, digits and _, starting with a letter)")
        }
        guard let file else { throw UsageError(message: "the export file is required") }
        if !keepIdentity { masterKey = nil }
        while serverURL.hasSuffix("/") { serverURL.removeLast() }
        self.className = className
        self.file = file
    }
}
