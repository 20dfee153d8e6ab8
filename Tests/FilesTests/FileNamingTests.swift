@testable import FilesCore
import ParseWire
import Testing

struct FileNamingTests {
    @Test(arguments: ["a.txt", "_x", "photo 1.jpg", "a@b.c~d-e_f", "0"])
    func acceptsParseServersNames(name: String) {
        #expect(FileNaming.validationError(name) == nil)
    }

    @Test(arguments: ["", ".hidden", "-a", " a", "a/b", "a;b", "é", "a\u{0}"])
    func refusesOtherCharacters(name: String) {
        #expect(FileNaming.validationError(name) == ParseError(.invalidFileName, "Filename contains invalid characters."))
    }

    @Test func limitsTheLength() {
        #expect(FileNaming.validationError(String(repeating: "a", count: 128)) == nil)
        #expect(FileNaming.validationError(String(repeating: "a", count: 129)) == ParseError(.invalidFileName, "Filename too long."))
    }

    @Test func appendsAnExtensionOnlyWhenThereIsNone() {
        #expect(FileNaming.withExtension("hello", contentType: "text/plain") == "hello.txt")
        #expect(FileNaming.withExtension("hello", contentType: "text/plain; charset=utf-8") == "hello.txt")
        #expect(FileNaming.withExtension("hello", contentType: "image/jpeg") == "hello.jpeg")
        #expect(FileNaming.withExtension("hello.md", contentType: "text/plain") == "hello.md")
        #expect(FileNaming.withExtension("hello", contentType: "x-unknown/thing") == "hello")
        #expect(FileNaming.withExtension("hello", contentType: nil) == "hello")
    }

    @Test func prefixesA32HexDigitRandomPart() {
        let name = FileNaming.storedName("a.txt", preserve: false)
        #expect(name.range(of: "^[0-9a-f]{32}_a\\.txt$", options: .regularExpression) != nil)
        #expect(FileNaming.storedName("a.txt", preserve: false) != name)
        #expect(FileNaming.storedName("a.txt", preserve: true) == "a.txt")
    }

    @Test func pathExtensionFollowsNode() {
        #expect(FileNaming.pathExtension("a.tar.gz") == ".gz")
        #expect(FileNaming.pathExtension(".hidden") == "")
        #expect(FileNaming.pathExtension("plain") == "")
    }
}
