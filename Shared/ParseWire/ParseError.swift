/// A Parse error as clients see it: `{"code":N,"error":"..."}`, named after the SDKs' codes.
public struct ParseError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The HTTP status parse-server pairs with the code: 500 for an internal error, 404 for "not found", else 400.
    public var httpStatus: Int {
        switch code {
        case .internalServerError: 500
        case .objectNotFound: 404
        case .timeout: 504
        case .connectionFailed: 503
        default: 400
        }
    }

    public var description: String { "ParseError(\(code.rawValue)): \(message)" }

    private enum CodingKeys: String, CodingKey {
        case code
        case message = "error"
    }

    public struct Code: RawRepresentable, Codable, Sendable, Hashable {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(Int.self) }
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public static let otherCause = Code(rawValue: -1)
        public static let internalServerError = Code(rawValue: 1)
        public static let connectionFailed = Code(rawValue: 100)
        public static let objectNotFound = Code(rawValue: 101)
        public static let invalidQuery = Code(rawValue: 102)
        public static let invalidClassName = Code(rawValue: 103)
        public static let missingObjectId = Code(rawValue: 104)
        public static let invalidKeyName = Code(rawValue: 105)
        public static let invalidPointer = Code(rawValue: 106)
        public static let invalidJSON = Code(rawValue: 107)
        public static let commandUnavailable = Code(rawValue: 108)
        public static let incorrectType = Code(rawValue: 111)
        public static let pushMisconfigured = Code(rawValue: 115)
        public static let operationForbidden = Code(rawValue: 119)
        public static let invalidNestedKey = Code(rawValue: 121)
        public static let invalidFileName = Code(rawValue: 122)
        public static let invalidACL = Code(rawValue: 123)
        public static let missingRequiredField = Code(rawValue: 135)
        public static let duplicateValue = Code(rawValue: 137)
        public static let timeout = Code(rawValue: 124)
        public static let fileSaveError = Code(rawValue: 130)
        public static let fileDeleteError = Code(rawValue: 153)
        public static let requestLimitExceeded = Code(rawValue: 155)
        public static let invalidSessionToken = Code(rawValue: 209)
        public static let invalidEmailAddress = Code(rawValue: 125)
        public static let changedImmutableField = Code(rawValue: 136)
        public static let invalidRoleName = Code(rawValue: 139)
        public static let scriptFailed = Code(rawValue: 141)
        public static let validationError = Code(rawValue: 142)
        public static let webhookError = Code(rawValue: 143)
        public static let usernameMissing = Code(rawValue: 200)
        public static let passwordMissing = Code(rawValue: 201)
        public static let usernameTaken = Code(rawValue: 202)
        public static let emailTaken = Code(rawValue: 203)
        public static let emailMissing = Code(rawValue: 204)
        public static let emailNotFound = Code(rawValue: 205)
        public static let sessionMissing = Code(rawValue: 206)
        public static let unsupportedService = Code(rawValue: 252)
        public static let invalidSchemaOperation = Code(rawValue: 255)
        public static let duplicateRequest = Code(rawValue: 159)
    }
}

extension ParseError {
    /// What a client sees for a failure whose details must stay in the logs.
    public static let internalError = ParseError(.internalServerError, "Internal server error.")
}
