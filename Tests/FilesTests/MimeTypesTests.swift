import ParseWire
import Testing

struct MimeTypesTests {
    @Test func headerWinsThenExtensionThenBytes() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        #expect(MimeTypes.resolve(header: "video/mp4", name: "a.png", head: png) == "video/mp4")
        #expect(MimeTypes.resolve(header: nil, name: "a.JPG", head: png) == "image/jpeg")
        #expect(MimeTypes.resolve(header: nil, name: "a", head: png) == "image/png")
        #expect(MimeTypes.resolve(header: " ", name: "a", head: [1, 2]) == "application/octet-stream")
    }

    @Test func recognisesCommonFormats() {
        #expect(MimeTypes.sniff([0xFF, 0xD8, 0xFF, 0xE0]) == "image/jpeg")
        #expect(MimeTypes.sniff(Array("GIF89a..".utf8)) == "image/gif")
        #expect(MimeTypes.sniff(Array("RIFF\0\0\0\0WEBPVP8 ".utf8)) == "image/webp")
        #expect(MimeTypes.sniff(Array("%PDF-1.7".utf8)) == "application/pdf")
        #expect(MimeTypes.sniff(Array("\0\0\0\u{18}ftypheic".utf8)) == "image/heic")
        #expect(MimeTypes.sniff(Array("\0\0\0\u{18}ftypisom".utf8)) == "video/mp4")
        #expect(MimeTypes.sniff(Array("hello".utf8)) == nil)
    }
}
