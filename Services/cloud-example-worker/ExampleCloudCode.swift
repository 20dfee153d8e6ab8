import Foundation
import ParseCloud
import ParseWire

/// What the example worker serves.
enum ExampleCloudCode {
    static func define(on cloud: Cloud) {
        definePHPSuiteCode(on: cloud)
        defineFunctions(on: cloud)
        defineTriggers(on: cloud)
    }

    /// The Parse PHP SDK's tests/cloud-code.js, in Swift.
    static func definePHPSuiteCode(on cloud: Cloud) {
        cloud.define("bar") { request in
            guard request.params["key2"] == .string("value1") else { throw CloudError("bad stuff happened") }
            return .string("Foo")
        }
        cloud.define("foo") { request in
            let key2 = request.params["key2"]?.arrayValue
            if request.params["key1"] == .string("value1"), key2 == [.number(1), .number(2), .number(3)] {
                return .object([
                    "object": .object([
                        "__type": .string("Object"), "className": .string("Foo"), "objectId": .string("1"), "x": .number(2),
                        "relation": .object(["__type": .string("Object"), "className": .string("Bar"), "objectId": .string("2"), "x": .number(3)]),
                    ]),
                    "array": .array([.object(["__type": .string("Object"), "className": .string("Bar"), "objectId": .string("10"), "x": .number(2)])]),
                ])
            }
            if request.params["key1"] == .string("value1") { return .object(["a": .number(2)]) }
            throw CloudError("invalid!")
        }
        cloud.define("createTestUser") { request in
            _ = try await request.api.request("POST", "users", body: .object(["username": .string("harry"), "password": .string("potter")]))
            let login = try await request.api.request("GET", "login", query: ["username": "harry", "password": "potter"])
            return login["sessionToken"] ?? .null
        }
        cloud.job("CloudJob1") { _ in .object(["status": .string("cloud job completed")]) }
        cloud.job("CloudJob2") { _ in
            try await Task.sleep(for: .seconds(3))
            return .object(["status": .string("cloud job completed")])
        }
        cloud.job("CloudJobFailing") { _ in throw CloudError("cloud job failed") }
    }

    /// Functions the integration tests and the benchmark call.
    static func defineFunctions(on cloud: Cloud) {
        let instance = cloud.configuration.instance
        cloud.define("echo") { request in
            request.log.info("echo called", ["keys": (request.params.objectValue?.keys.sorted() ?? []).joined(separator: ",")])
            return request.params
        }
        cloud.define("whoami") { request in
            .object(["user": request.user ?? .null, "master": .bool(request.master), "params": request.params,
                     "installationId": request.installationId.map(JSONValue.string) ?? .null])
        }
        cloud.define("instance") { _ in .string(instance) }
        cloud.define("refuse") { request -> JSONValue in
            // The caller's number: only a whole one an `Int` holds is a code.
            let code = request.params["code"]?.numberValue.flatMap { Int(exactly: $0) } ?? 141
            throw CloudError(request.params["message"]?.stringValue ?? "refused", code: code)
        }
        // parse-server 9's `res.status()` and `res.header()`: the status and headers the caller asks for.
        cloud.define("respond") { request -> FunctionResponse in
            let status = request.params["status"]?.numberValue.flatMap { Int(exactly: $0) }
            let headers = (request.params["headers"]?.objectValue ?? [:]).compactMapValues(\.stringValue)
            return FunctionResponse(request.params["result"] ?? .null, status: status, headers: headers)
        }
        cloud.define("sleep") { request in
            // At most a minute, whatever the caller asked (a double may hold more than an `Int`).
            let asked = request.params["ms"]?.numberValue ?? 0
            let milliseconds = asked.isFinite ? min(max(asked, 0), 60_000) : 0
            try await Task.sleep(for: .milliseconds(Int(milliseconds)))
            return .string("slept")
        }
        // Parse.Cloud.run-style calls back into the API, as the master and as the caller.
        cloud.define("countObjects") { request in
            let className = request.params["className"]?.stringValue ?? "CloudCat"
            let answer = try await request.api.request("GET", "classes/\(className)", query: ["count": "1", "limit": "0"])
            return answer["count"] ?? .number(0)
        }
        cloud.define("callerUsername") { request in
            let me = try await request.asCaller.request("GET", "users/me")
            return me["username"] ?? .null
        }
    }

    /// Triggers on `CloudTriggerCat`: a beforeSave that fills a field and refuses one name, a beforeDelete that
    /// refuses locked cats, an afterSave that records each save in `CloudTriggerLog`, and a beforeFind that hides
    /// hidden cats.
    static func defineTriggers(on cloud: Cloud) {
        let className = "CloudTriggerCat"
        cloud.beforeSave(className) { request in
            guard var object = request.object?.objectValue else { return nil }
            if object["name"] == .string("refuse") { throw CloudError("This name is refused.", code: 142) }
            if let name = object["name"]?.stringValue { object["nameLength"] = .number(Double(name.count)) }
            object["checked"] = .bool(true)
            return .object(object)
        }
        cloud.beforeDelete(className) { request in
            if request.object?["locked"] == .bool(true) { throw CloudError("Locked cats stay.", code: 142) }
        }
        cloud.afterSave(className) { request in
            _ = try await request.api.request("POST", "classes/CloudTriggerLog", body: .object([
                "savedId": request.object?["objectId"] ?? .null, "trigger": .string("afterSave"),
                "name": request.object?["name"] ?? .null,
            ]))
        }
        cloud.beforeFind(className) { request in
            var query = request.query?.objectValue ?? [:]
            var constraints = query["where"]?.objectValue ?? [:]
            constraints["hidden"] = .object(["$ne": .bool(true)])
            query["where"] = .object(constraints)
            return .object(query)
        }
    }
}
