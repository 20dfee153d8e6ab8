import ParseWire
import Testing
@testable import FilesCore

/// `fileUpload` changed at run time: each given field over the start-up policy, the others kept.
@Suite struct FilesRuntimeSettingsTests {
    static let owner = FilesRuntimeSettings(startUp: FileUploadPolicy())

    @Test func givenFieldsReplaceTheStartUpOnesAndTheOthersStay() throws {
        let policy = try Self.owner.policy(["fileUpload": .object(["enableForPublic": .bool(true),
                                                                   "fileExtensions": .array([.string("^png$")])])])
        #expect(policy.enableForPublic && policy.enableForAuthenticatedUser && !policy.enableForAnonymousUser)
        #expect(policy.allowsExtension("png") && !policy.allowsExtension("txt"))
        let listed = try Self.owner.settings(with: [:])["fileUpload"]?.objectValue
        #expect(listed?["enableForPublic"] == .bool(false))
        #expect(listed?["fileExtensions"] == .array([.string("^(?!(h|H)(t|T)(m|M)(l|L)?$)")]))
    }

    @Test(arguments: [JSONValue.bool(true), .object(["enableForPublic": .string("yes")]),
                      .object(["fileExtensions": .array([.string("(")])]), .object(["fileExtensions": .string("png")]),
                      .object(["allowedFileUrlDomains": .array([])])])
    func aValueFilesCannotTakeIsRefused(_ value: JSONValue) {
        let error = #expect(throws: ParseError.self) { _ = try Self.owner.policy(["fileUpload": value]) }
        #expect(error?.code == .invalidJSON)
    }
}
