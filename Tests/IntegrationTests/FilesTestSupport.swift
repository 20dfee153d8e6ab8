import Foundation

/// Uploads and downloads for the files tests.
enum FilesAPI {
    static func headers(token: String? = nil, master: Bool = false, contentType: String? = nil) -> [String: String] {
        var headers = HTTP.appHeaders
        if let token { headers["X-Parse-Session-Token"] = token }
        if master { headers["X-Parse-Master-Key"] = TestStack.masterKey }
        if let contentType { headers["Content-Type"] = contentType }
        return headers
    }

    /// `POST /files/<name>` with the raw bytes (the name is percent-encoded as the SDKs do), and no
    /// `Content-Type` unless one is given.
    static func upload(_ name: String, _ bytes: Data, contentType: String? = nil, token: String? = nil,
                       master: Bool = false) async throws -> Reply {
        let encoded = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? name
        let fields = headers(token: token, master: master, contentType: contentType)
        if contentType == nil { return try FilesRawUpload.post("/files/\(encoded)", headers: fields, body: bytes) }
        return try await HTTP.send("POST", "/files/\(encoded)", headers: fields, body: bytes)
    }

    /// Uploads as a fresh signed-in user and returns the answer's url and name.
    static func store(_ name: String, _ bytes: Data, contentType: String? = nil) async throws -> (url: String, name: String) {
        let user = try await AuthAPI.signUp("uploader")
        let reply = try await upload(name, bytes, contentType: contentType, token: user.token)
        guard reply.status == 201, let url = reply.json?["url"] as? String, let stored = reply.json?["name"] as? String else {
            throw AuthTestError(description: "upload failed: \(reply.status) \(reply.text)")
        }
        return (url, stored)
    }

    /// GET of an absolute url, with no Parse headers (as an `<img>` tag would).
    static func get(_ url: String, headers: [String: String] = [:], method: String = "GET") async throws -> Reply {
        try await HTTP.send(method, "", headers: headers, base: url)
    }

    static func downloadPath(_ name: String) -> String {
        "/files/\(TestStack.applicationId)/\(name)"
    }

    /// Bytes that differ from position to position, so a misplaced part shows.
    static func pattern(_ count: Int, seed: UInt8 = 7) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        var state = UInt32(seed) &* 2_654_435_761 | 1
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }
}
