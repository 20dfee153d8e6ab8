import Foundation
import HTTPClient

/// Sends the objects in batches to `POST <server>/batch`, as creates of the class.
struct Importer {
    let options: ImportOptions
    let progress: Progress

    struct Outcome { var imported = 0; var failures: [String] = [] }

    /// Fields a create may not carry: the server sets them, or they describe the export itself.
    private static let serverFields: Set<String> = ["className", "__type"]
    private static let identityFields: Set<String> = ["objectId", "createdAt", "updatedAt"]

    func run(_ objects: [[String: Any]]) async throws -> Outcome {
        var outcome = Outcome()
        let mountPath = URLComponents(string: options.serverURL)?.path ?? "/parse"
        var start = 0
        progress.update(done: 0, failed: 0)
        while start < objects.count {
            let chunk = objects[start..<min(start + options.batchSize, objects.count)]
            let requests: [[String: Any]] = chunk.map { object in
                ["method": "POST", "path": "\(mountPath)/classes/\(options.className)", "body": body(object)]
            }
            let answers = try await send(["requests": requests])
            for (offset, answer) in answers.enumerated() {
                if answer["success"] != nil {
                    outcome.imported += 1
                } else {
                    let error = answer["error"] as? [String: Any]
                    let id = chunk[chunk.startIndex + offset]["objectId"] as? String ?? "#\(start + offset)"
                    outcome.failures.append("\(id): \(error?["code"] ?? "?") \(error?["error"] ?? "unknown error")")
                }
            }
            start += chunk.count
            progress.update(done: start, failed: outcome.failures.count)
        }
        return outcome
    }

    private func body(_ object: [String: Any]) -> [String: Any] {
        object.filter { key, _ in
            !Self.serverFields.contains(key) && (options.keepIdentity || !Self.identityFields.contains(key))
        }
    }

    private func send(_ payload: [String: Any]) async throws -> [[String: Any]] {
        var headers = ["Content-Type: application/json", "X-Parse-Application-Id: \(options.applicationId)"]
        if let key = options.masterKey { headers.append("X-Parse-Master-Key: \(key)") }
        let body = Array(try JSONSerialization.data(withJSONObject: payload))
        let response = try await Self.http.send(.init("POST", options.serverURL + "/batch", headers: headers, body: body,
                                                      timeout: .seconds(120)))
        guard response.status == 200,
              let answers = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] else {
            throw ImportFailure(description: "the server answered \(response.status): \(String(decoding: response.body, as: UTF8.self))")
        }
        return answers
    }

    private static let http = HTTPClient(label: "parse-import")

    struct ImportFailure: Error, CustomStringConvertible { let description: String }
}
