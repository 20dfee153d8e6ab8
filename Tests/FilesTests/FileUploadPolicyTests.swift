@testable import FilesCore
import Runtime
import Testing

struct FileUploadPolicyTests {
    @Test func defaultsAreParseServers() {
        let policy = FileUploadPolicy()
        #expect(policy.refusal(isMaster: false, userId: nil) == "File upload by public is disabled.")
        #expect(policy.refusal(isMaster: false, userId: "u1") == nil)
        #expect(policy.refusal(isMaster: true, userId: nil) == nil)
        #expect(!policy.allowsExtension("html"))
        #expect(!policy.allowsExtension("HTM"))
        #expect(policy.allowsExtension("htmlx"))
        #expect(policy.allowsExtension("txt"))
    }

    @Test func theCheckedExtensionFollowsParseServer() {
        #expect(FileUploadPolicy.checkedExtension(name: "a.html", contentType: "text/plain") == "html")
        #expect(FileUploadPolicy.checkedExtension(name: "a", contentType: "text/html") == "html")
        #expect(FileUploadPolicy.checkedExtension(name: "a", contentType: "text/plain; charset=utf-8") == "plain;charset=utf-8")
        #expect(FileUploadPolicy.checkedExtension(name: "a", contentType: nil) == nil)
        #expect(FileUploadPolicy.checkedExtension(name: "a.", contentType: "text/html") == nil)
    }

    @Test func readsParseServersVariables() throws {
        let policy = try FileUploadPolicy.fromEnvironment(Environment([
            "PARSE_SERVER_FILE_UPLOAD_OPTIONS": #"{"enableForPublic":true,"fileExtensions":["^txt$"]}"#,
            "PARSE_SERVER_FILE_UPLOAD_ENABLE_FOR_AUTHENTICATED_USER": "false",
        ]))
        #expect(policy.refusal(isMaster: false, userId: nil) == nil)
        #expect(policy.refusal(isMaster: false, userId: "u") == "File upload by authenticated user is disabled.")
        #expect(policy.allowsExtension("txt"))
        #expect(!policy.allowsExtension("png"))
        let listed = try FileUploadPolicy.fromEnvironment(Environment(["PARSE_SERVER_FILE_UPLOAD_FILE_EXTENSIONS": "png, jpg"]))
        #expect(listed.fileExtensions == ["png", "jpg"])
        #expect(throws: ConfigurationError.self) {
            try FileUploadPolicy.fromEnvironment(Environment(["PARSE_SERVER_FILE_UPLOAD_ENABLE_FOR_PUBLIC": "maybe"]))
        }
    }
}
