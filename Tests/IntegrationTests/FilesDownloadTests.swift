import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct FilesDownload {
        @Test func rangesAnswer206WithTheirPart() async throws {
            let bytes = FilesAPI.pattern(3_000_000, seed: 3)
            let stored = try await FilesAPI.store("range.bin", bytes)
            let head = try await FilesAPI.get(stored.url, headers: ["Range": "bytes=0-9"])
            #expect(head.status == 206)
            #expect(head.body == bytes.prefix(10))
            #expect(head.header("Content-Range") == "bytes 0-9/3000000")
            #expect(head.header("Content-Length") == "10")
            // Across the boundary between two stored parts.
            let middle = try await FilesAPI.get(stored.url, headers: ["Range": "bytes=1048000-1049999"])
            #expect(middle.status == 206)
            #expect(middle.body == bytes[1_048_000...1_049_999])
            let open = try await FilesAPI.get(stored.url, headers: ["Range": "bytes=2999990-"])
            #expect(open.body == bytes.suffix(10))
            let suffix = try await FilesAPI.get(stored.url, headers: ["Range": "bytes=-5"])
            #expect(suffix.status == 206)
            #expect(suffix.body == bytes.suffix(5))
            #expect(suffix.header("Content-Range") == "bytes 2999995-2999999/3000000")
            let outside = try await FilesAPI.get(stored.url, headers: ["Range": "bytes=3000000-"])
            #expect(outside.status == 416)
            #expect(outside.header("Content-Range") == "bytes */3000000")
        }

        @Test func etagAnswers304AndNamesAreCachedForAYear() async throws {
            let stored = try await FilesAPI.store("cached.txt", Data("cache me".utf8))
            let first = try await FilesAPI.get(stored.url)
            let etag = try #require(first.header("ETag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
            #expect(first.header("Cache-Control")?.contains("max-age=31536000") == true)
            let again = try await FilesAPI.get(stored.url, headers: ["If-None-Match": etag])
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            let other = try await FilesAPI.get(stored.url, headers: ["If-None-Match": "\"something-else\""])
            #expect(other.status == 200)
            #expect(other.text == "cache me")
        }

        @Test func downloadsNeedNoKeysButAcceptThem() async throws {
            let stored = try await FilesAPI.store("keys.txt", Data("k".utf8))
            let user = try await AuthAPI.signUp("reader")
            let reply = try await FilesAPI.get(stored.url, headers: FilesAPI.headers(token: user.token))
            #expect(reply.text == "k")
        }

        @Test func metadataIsEmptyForRawUploads() async throws {
            let stored = try await FilesAPI.store("meta.txt", Data("m".utf8))
            let reply = try await HTTP.send("GET", "/files/\(TestStack.applicationId)/metadata/\(stored.name)")
            #expect(reply.status == 200)
            #expect(reply.text == "{}")
            let unknown = try await HTTP.send("GET", "/files/\(TestStack.applicationId)/metadata/nothing.txt")
            #expect(unknown.text == "{}")
        }

        @Test func onlyTheMasterKeyDeletes() async throws {
            let stored = try await FilesAPI.store("gone.txt", Data("bye".utf8))
            let user = try await AuthAPI.signUp("deleter")
            let path = "/files/\(stored.name)"
            let refused = try await HTTP.send("DELETE", path, headers: FilesAPI.headers(token: user.token))
            #expect(refused.status == 403)
            #expect(refused.text == #"{"error":"unauthorized: master key is required"}"#)
            let deleted = try await HTTP.send("DELETE", path, headers: FilesAPI.headers(master: true))
            #expect(deleted.status == 200)
            #expect(deleted.body.isEmpty)
            #expect(try await FilesAPI.get(stored.url).status == 404)
            let again = try await HTTP.send("DELETE", path, headers: FilesAPI.headers(master: true))
            #expect(again.status == 400)
            #expect(AuthAPI.error(again).0 == 153)
            #expect(AuthAPI.error(again).1 == "Could not delete file.")
        }
    }
}
