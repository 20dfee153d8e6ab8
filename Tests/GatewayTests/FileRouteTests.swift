import Testing
@testable import GatewayCore

@Suite struct FileRouteTests {
    @Test(arguments: ["files", "files/pic.jpg", "files/app/pic.jpg", "files/app/metadata/pic.jpg"])
    func filePathsAreFileRoutes(path: String) {
        #expect(GatewayRoute.destination(method: "GET", path: path) == .files)
    }

    @Test(arguments: ["", "filesx", "file", "classes/files", "Files/pic.jpg", "/files/pic.jpg"])
    func otherPathsAreNotFileRoutes(path: String) {
        #expect(GatewayRoute.destination(method: "GET", path: path) != .files)
    }

    @Test func postWithoutNameIsAnUploadWithoutName() {
        #expect(FileRoute(method: "POST", path: "files") == .uploadWithoutName)
    }

    @Test func postWithNameIsAnUpload() {
        #expect(FileRoute(method: "POST", path: "files/pic.jpg") == .upload(name: "pic.jpg"))
    }

    @Test func nameKeepsItsDecodedCharacters() {
        #expect(FileRoute(method: "POST", path: "files/my pic ü.jpg") == .upload(name: "my pic ü.jpg"))
    }

    @Test(arguments: ["GET", "HEAD"])
    func getAndHeadWithAppAndNameAreDownloads(method: String) {
        #expect(FileRoute(method: method, path: "files/myApp/abc_pic.jpg") == .download(appId: "myApp", name: "abc_pic.jpg"))
    }

    @Test(arguments: ["GET", "HEAD"])
    func metadataPathIsMetadata(method: String) {
        #expect(FileRoute(method: method, path: "files/myApp/metadata/abc_pic.jpg")
                == .metadata(appId: "myApp", name: "abc_pic.jpg"))
    }

    @Test func fileNamedMetadataIsADownload() {
        #expect(FileRoute(method: "GET", path: "files/myApp/metadata") == .download(appId: "myApp", name: "metadata"))
    }

    @Test func deleteWithNameIsADelete() {
        #expect(FileRoute(method: "DELETE", path: "files/abc_pic.jpg") == .delete(name: "abc_pic.jpg"))
    }

    @Test(arguments: [
        ("GET", "files"),
        ("GET", "files/pic.jpg"),
        ("GET", "files/myApp/other/pic.jpg"),
        ("GET", "files/myApp/metadata/pic.jpg/extra"),
        ("POST", "files/myApp/pic.jpg"),
        ("DELETE", "files"),
        ("DELETE", "files/myApp/pic.jpg"),
        ("PUT", "files/pic.jpg"),
        ("PUT", "files/myApp/pic.jpg"),
        ("get", "files/myApp/pic.jpg"),
        ("post", "files/pic.jpg"),
    ])
    func otherShapesAreUnknown(method: String, path: String) {
        #expect(FileRoute(method: method, path: path) == .unknown)
    }
}
