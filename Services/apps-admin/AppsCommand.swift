import Foundation
import HTTPClient

/// The command line: which registry call, against which server, and what it prints (one JSON object per line).
enum AppsCommand {
    static let usage = """
        Usage: parse-apps create NAME | list | rename NAME NEW | push NAME ENDPOINTS | delete NAME --yes

          create NAME         creates an app; prints it as one JSON object (name, applicationId, masterKey,
                              clientKey, restApiKey, javascriptKey, dotNetKey, createdAt)
          list                every app, one JSON object per line, the stack's own (from its environment) first
          rename NAME NEW     gives an app a new name; its id, keys and data stay
          push NAME ENDPOINTS where the push adapter POSTs the app's notifications, one URL per device type:
                              ios=https://a.example/push,*=https://b.example/push ("" for nowhere)
          delete NAME --yes   deletes an app with all its data

        Environment: PARSE_SERVER_ADMIN_KEY (the gateway's, required) and PARSE_SERVER_URL (the server URL with its
        mount, http://127.0.0.1:1337/parse by default; the registry's API is at its root).
        """

    /// What one call sends.
    struct Call: Equatable {
        var method: String
        /// Below `/admin/apps`, with its query.
        var path: String
        var body: [String: String]?
    }

    struct UsageError: Error { let message: String }

    static func call(for arguments: [String]) throws -> Call {
        switch arguments {
        case ["list"]: return Call(method: "GET", path: "", body: nil)
        case let arguments where arguments.count == 2 && arguments[0] == "create" && !arguments[1].isEmpty:
            return Call(method: "POST", path: "", body: ["name": arguments[1]])
        case let arguments where arguments.count == 3 && arguments[0] == "rename" && !arguments[1].isEmpty:
            return Call(method: "PUT", path: "/" + encoded(arguments[1]), body: ["name": arguments[2]])
        case let arguments where arguments.count == 3 && arguments[0] == "push" && !arguments[1].isEmpty:
            return Call(method: "PUT", path: "/\(encoded(arguments[1]))/push", body: ["endpoints": arguments[2]])
        case let arguments where arguments.count == 3 && arguments[0] == "delete" && !arguments[1].isEmpty:
            guard arguments[2] == "--yes" else { throw UsageError(message: "delete removes all the app's data: add --yes") }
            return Call(method: "DELETE", path: "/\(encoded(arguments[1]))?confirm=\(encoded(arguments[1]))", body: nil)
        default: throw UsageError(message: arguments.isEmpty || arguments == ["--help"] ? "" : "unexpected arguments")
        }
    }

    /// The server's root (scheme, host and port) of a server URL with its mount.
    static func root(of serverURL: String) -> String? {
        guard let components = URLComponents(string: serverURL), let scheme = components.scheme, let host = components.host else {
            return nil
        }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }

    /// The lines to print for an answer: each app of a list, or the one app.
    static func lines(_ body: [UInt8], list: Bool) -> [String] {
        guard list else { return [String(decoding: body, as: UTF8.self)] }
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
              let apps = object["results"] as? [Any] else { return [String(decoding: body, as: UTF8.self)] }
        return apps.compactMap { app in
            (try? JSONSerialization.data(withJSONObject: app, options: [.sortedKeys, .withoutEscapingSlashes]))
                .map { String(decoding: $0, as: UTF8.self) }
        }
    }

    static func main(_ arguments: [String], environment: [String: String]) async -> Int32 {
        let call: Call
        do {
            call = try Self.call(for: arguments)
        } catch let error as UsageError {
            let text = error.message.isEmpty ? usage : "parse-apps: \(error.message)\n\n\(usage)"
            FileHandle.standardError.write(Data((text + "\n").utf8))
            return error.message.isEmpty ? 0 : 2
        } catch {
            return 2
        }
        guard let key = environment["PARSE_SERVER_ADMIN_KEY"], !key.isEmpty else {
            return fail("PARSE_SERVER_ADMIN_KEY is not set: the gateway serves the app registry only with its admin key", status: 2)
        }
        let serverURL = environment["PARSE_SERVER_URL"] ?? "http://127.0.0.1:1337/parse"
        guard let root = root(of: serverURL) else { return fail("PARSE_SERVER_URL is not a URL: \(serverURL)", status: 2) }
        var headers = ["X-Parse-Admin-Key: \(key)"]
        var body: [UInt8]?
        if let fields = call.body {
            headers.append("Content-Type: application/json")
            body = Array((try? JSONSerialization.data(withJSONObject: fields)) ?? Data())
        }
        // A creation, rename or deletion answers once every gateway's copy of the app ran out: a few seconds.
        let request = HTTPClient.Request(call.method, "\(root)/admin/apps\(call.path)", headers: headers, body: body,
                                         timeout: .seconds(60))
        let response: HTTPClient.Response
        do {
            response = try await HTTPClient(label: "parse-apps").send(request)
        } catch {
            return fail("the server at \(root) did not answer: \(error)")
        }
        guard (200..<300).contains(response.status) else {
            return fail("the server answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        for line in lines(response.body, list: call.method == "GET") { print(line) }
        return 0
    }

    private static func encoded(_ name: String) -> String {
        name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name
    }

    private static func fail(_ message: String, status: Int32 = 1) -> Int32 {
        FileHandle.standardError.write(Data("parse-apps: \(message)\n".utf8))
        return status
    }
}
