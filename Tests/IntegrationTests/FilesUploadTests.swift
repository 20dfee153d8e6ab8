import Foundation
import Testing

extension IntegrationSuite {
    @Suite struct FilesUpload {
        @Test(arguments: [1, 1_500_000, 20 * 1024 * 1024])
        func roundTripKeepsEveryByte(size: Int) async throws {
            let bytes = FilesAPI.pattern(size, seed: UInt8(size % 251))
            let stored = try await FilesAPI.store("blob.bin", bytes)
            let reply = try await FilesAPI.get(stored.url)
            #expect(reply.status == 200)
            #expect(reply.body.count == size)
            #expect(reply.body == bytes)
            #expect(reply.header("Content-Length") == String(size))
            #expect(reply.header("Content-Type") == "application/octet-stream")
        }

        @Test func answerCarriesAnAbsoluteURLAndThePrefixedName() async throws {
            let user = try await AuthAPI.signUp("uploader")
            let reply = try await FilesAPI.upload("hello.txt", Data("hello".utf8), contentType: "text/plain",
                                                  token: user.token)
            #expect(reply.status == 201)
            let json = try #require(reply.json)
            let name = try #require(json["name"] as? String)
            let url = try #require(json["url"] as? String)
            #expect(name.range(of: "^[0-9a-f]{32}_hello\\.txt$", options: .regularExpression) != nil)
            #expect(url == "\(TestStack.serverURL)/files/\(TestStack.applicationId)/\(name)")
            #expect(reply.header("Location") == url)
            #expect(reply.text == #"{"url":"\#(url)","name":"\#(name)"}"#)
            let download = try await FilesAPI.get(url)
            #expect(download.text == "hello")
            #expect(download.header("Content-Type") == "text/plain")
        }

        @Test func namesWithSpacesArePercentEncodedInTheURL() async throws {
            let stored = try await FilesAPI.store("large photo.jpg", Data([0xFF, 0xD8, 0xFF, 0xE0]))
            #expect(stored.name.hasSuffix("_large photo.jpg"))
            #expect(stored.url.hasSuffix("_large%20photo.jpg"))
            let reply = try await FilesAPI.get(stored.url)
            #expect(reply.body == Data([0xFF, 0xD8, 0xFF, 0xE0]))
            #expect(reply.header("Content-Type") == "image/jpeg")
        }

        @Test func contentTypeComesFromTheHeaderThenTheExtensionThenTheBytes() async throws {
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0])
            let sniffed = try await FilesAPI.store("picture", png)
            #expect(try await FilesAPI.get(sniffed.url).header("Content-Type") == "image/png")
            let byExtension = try await FilesAPI.store("data.json", Data("{}".utf8))
            #expect(try await FilesAPI.get(byExtension.url).header("Content-Type") == "application/json")
            let byHeader = try await FilesAPI.store("clip.unknownext", Data([1, 2, 3]), contentType: "video/mp4")
            #expect(try await FilesAPI.get(byHeader.url).header("Content-Type") == "video/mp4")
        }

        @Test func aDownloadHasTheTypeOfItsExtensionWhateverTheUploadSaid() async throws {
            // The PHP SDK uploads `photo.png` with the type its caller gave; parse-server downloads it as a PNG.
            let stored = try await FilesAPI.store("photo.png", Data("a fractal of rad design".utf8), contentType: "text/plain")
            #expect(try await FilesAPI.get(stored.url).header("Content-Type") == "image/png")
            let upper = try await FilesAPI.store("photo.PNG", Data("rad".utf8), contentType: "text/plain")
            #expect(try await FilesAPI.get(upper.url).header("Content-Type") == "image/png")
        }

        @Test func aNameWithoutExtensionGetsOneFromTheContentType() async throws {
            let stored = try await FilesAPI.store("hello", Data("hi".utf8), contentType: "text/plain")
            #expect(stored.name.hasSuffix("_hello.txt"))
        }

        @Test func theMasterKeyMayUpload() async throws {
            let reply = try await FilesAPI.upload("master.txt", Data("m".utf8), master: true)
            #expect(reply.status == 201)
        }

        @Test func theJavaScriptSDKsJSONFormIsUnwrapped() async throws {
            let user = try await AuthAPI.signUp("jsuploader")
            let body: [String: Any] = [
                "_ApplicationId": TestStack.applicationId, "_SessionToken": user.token, "_ContentType": "text/plain",
                "base64": Data("from js".utf8).base64EncodedString(), "fileData": ["metadata": ["owner": "js"], "tags": [:]],
            ]
            let reply = try await HTTP.send("POST", "/files/js.txt", headers: ["Content-Type": "text/plain"],
                                            body: try JSONSerialization.data(withJSONObject: body))
            #expect(reply.status == 201, "\(reply.text)")
            let url = try #require(reply.json?["url"] as? String)
            let name = try #require(reply.json?["name"] as? String)
            #expect(try await FilesAPI.get(url).text == "from js")
            let metadata = try await HTTP.send("GET", "/files/\(TestStack.applicationId)/metadata/\(name)")
            #expect(metadata.text == #"{"metadata":{"owner":"js"}}"#)
        }

        @Test func concurrentUploadsEachKeepTheirBytes() async throws {
            let user = try await AuthAPI.signUp("parallel")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        let bytes = FilesAPI.pattern(1_200_000 + index * 1000, seed: UInt8(index))
                        let reply = try await FilesAPI.upload("p\(index).bin", bytes, token: user.token)
                        #expect(reply.status == 201)
                        let url = try #require(reply.json?["url"] as? String)
                        #expect(try await FilesAPI.get(url).body == bytes)
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}
