import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
        var request = URLRequest(url: URL(string: options.serverURL + "/batch")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(options.applicationId, forHTTPHeaderField: "X-Parse-Application-Id")
        if let key = options.masterKey { request.setValue(key, forHTTPHeaderField: "X-Parse-Master-Key") }
        request.httpBody = try JSONSerialization.data(withJSONObject: payload)
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200, let answers = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw ImportFailure(description: "the server answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return answers
    }

    struct ImportFailure: Error, CustomStringConvertible { let description: String }
}
