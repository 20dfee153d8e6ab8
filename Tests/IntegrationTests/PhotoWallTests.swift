import Foundation
import Testing

extension IntegrationSuite {
    /// The photo wall tutorial across three services: a user signs up (auth), uploads a picture (files), posts it
    /// on the wall (posts); every client then reads the post with the picture's url and downloads it.
    @Suite struct PhotoWall {
        @Test func wallPostCarriesItsPictureURL() async throws {
            let user = try await AuthAPI.signUp("wall")
            let picture = FilesAPI.pattern(1500)
            let upload = try await FilesAPI.upload("cat.jpg", picture, contentType: "image/jpeg", token: user.token)
            #expect(upload.status == 201)
            let name = try #require(upload.json?["name"] as? String)
            let url = try #require(upload.json?["url"] as? String)

            let post: [String: Any] = [
                "text": "my cat",
                "image": ["__type": "File", "name": name],
                "user": ["__type": "Pointer", "className": "_User", "objectId": user.id],
            ]
            let created = try await HTTP.send("POST", "/classes/WallPost",
                                              headers: FilesAPI.headers(token: user.token, contentType: "application/json"),
                                              body: try JSONSerialization.data(withJSONObject: post))
            #expect(created.status == 201)
            let id = try #require(created.json?["objectId"] as? String)

            let read = try await HTTP.send("GET", "/classes/WallPost/\(id)", headers: FilesAPI.headers(token: user.token))
            let image = try #require(read.json?["image"] as? [String: Any])
            #expect(image["__type"] as? String == "File")
            #expect(image["name"] as? String == name)
            #expect(image["url"] as? String == url)

            let downloaded = try await FilesAPI.get(try #require(image["url"] as? String))
            #expect(downloaded.status == 200)
            #expect(downloaded.body == picture)
        }
    }
}
