import Testing
@testable import GatewayCore

@Suite struct FileByteRangeTests {
    private let size = 100

    @Test func closedRangeIsThatPart() {
        #expect(FileByteRange(header: "bytes=0-9", size: size) == .part(0...9))
    }

    @Test func singleByte() {
        #expect(FileByteRange(header: "bytes=5-5", size: size) == .part(5...5))
    }

    @Test func openRangeRunsToTheEnd() {
        #expect(FileByteRange(header: "bytes=5-", size: size) == .part(5...99))
    }

    @Test func suffixIsTheLastBytes() {
        #expect(FileByteRange(header: "bytes=-3", size: size) == .part(97...99))
    }

    @Test func suffixLongerThanTheFileIsTheWholeFileAsAPart() {
        #expect(FileByteRange(header: "bytes=-500", size: size) == .part(0...99))
    }

    @Test func endPastTheFileIsClamped() {
        #expect(FileByteRange(header: "bytes=90-1000", size: size) == .part(90...99))
    }

    @Test func unitAndSpacesAreLenient() {
        #expect(FileByteRange(header: " Bytes=0-9 ", size: size) == .part(0...9))
        #expect(FileByteRange(header: "bytes= 10 - 19", size: size) == .part(10...19))
    }

    @Test(arguments: ["bytes=100-", "bytes=100-200", "bytes=5000-5001", "bytes=-0"])
    func rangesOutsideTheFileAreUnsatisfiable(header: String) {
        #expect(FileByteRange(header: header, size: size) == .unsatisfiable)
    }

    @Test(arguments: ["bytes=0-", "bytes=0-9", "bytes=-3"])
    func anyRangeOfAnEmptyFileIsUnsatisfiable(header: String) {
        #expect(FileByteRange(header: header, size: 0) == .unsatisfiable)
    }

    @Test(arguments: ["bytes=0-9,20-29", "bytes=0-9, -5", "bytes=1-2,1-2"])
    func multipleRangesGiveTheWholeFile(header: String) {
        #expect(FileByteRange(header: header, size: size) == .whole)
    }

    @Test(arguments: ["", "bytes=", "bytes=-", "bytes=abc", "bytes=a-b", "bytes=5", "bytes=9-0", "items=0-9",
                      "0-9", "bytes 0-9", "bytes=1-x", "bytes=x-9", "bytes=-x"])
    func garbageGivesTheWholeFile(header: String) {
        #expect(FileByteRange(header: header, size: size) == .whole)
    }

    @Test func missingHeaderGivesTheWholeFile() {
        #expect(FileByteRange(header: nil, size: size) == .whole)
    }

    /// A negative suffix length is garbage; it must not be taken as a range (a reversed `ClosedRange` traps).
    @Test
    func negativeSuffixGivesTheWholeFile() {
        #expect(FileByteRange(header: "bytes=--3", size: size) == .whole)
    }
}
