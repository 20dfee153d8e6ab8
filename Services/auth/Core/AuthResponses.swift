import Contracts
import Foundation
import ParseWire

/// The JSON answers of the auth routes, in parse-server's shapes.
enum AuthResponses {
    static func json(_ status: Int, _ value: JSONValue, headers: [String: String] = [:]) -> RESTResponse {
        RESTResponse(status: status, headers: headers, body: value.compactText)
    }

    static func ok(_ fields: [String: JSONValue]) -> RESTResponse { json(200, .object(fields)) }

    static let empty = RESTResponse(status: 200, body: "{}")

    static func created(_ fields: [String: JSONValue], location: String) -> RESTResponse {
        json(201, .object(fields), headers: ["Location": location])
    }

    static func date(_ date: Date) -> JSONValue { .string(ParseDate.string(from: date)) }

    static func typedDate(_ date: Date) -> JSONValue {
        .object(["__type": .string("Date"), "iso": .string(ParseDate.string(from: date))])
    }

    static func pointer(_ className: String, _ objectId: String) -> JSONValue {
        .object(["__type": .string("Pointer"), "className": .string(className), "objectId": .string(objectId)])
    }
}

extension Date {
    /// Now, to the millisecond, so what is stored and what is answered are the same instant.
    static var nowMillis: Date {
        Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
    }
}
