import Contracts
import Foundation
import Runtime
import TestDoubles
import Testing
@testable import ParseWire

/// Generated hostile input, from fixed seeds, at every decoder a request reaches: each answers a value or an error,
/// and none stops the process (a test run that traps fails as a whole).
struct HostileInputPropertyTests {
    /// Texts that are JSON, nearly JSON, or JSON with numbers past a double's range.
    static func texts(seed: UInt64, count: Int) -> [String] {
        var hostile = HostileJSON(seed: seed)
        var texts: [String] = []
        for _ in 0..<count {
            var text = hostile.value().compactText
            switch Int.random(in: 0..<6, using: &hostile.generator) {
            case 0: text = String(text.prefix(Int.random(in: 0...max(0, text.count), using: &hostile.generator)))
            case 1: text = text.replacingOccurrences(of: "1", with: "1e999999")
            case 2: text = "{\"a\":" + String(repeating: "[", count: 600) + text
            case 3: text = text.replacingOccurrences(of: "\"", with: "\\u0000\"")
            default: break
            }
            texts.append(text)
        }
        return texts
    }

    @Test func theParserAnswersEveryTextWithAValueOrAReason() {
        for text in Self.texts(seed: 1, count: 3_000) {
            switch JSONValue.parseReporting(text) {
            case .success(let value): #expect(JSONValue.parse(value.compactText) != nil || !value.compactText.isEmpty)
            case .failure(let error): #expect(error.parseError.code == .invalidJSON)
            }
        }
    }

    @Test func aNumberPastADoublesRangeIsOutOfRangeNotInfinity() {
        for text in ["1e999999", "-1e400", "[1e309]", #"{"n":{"__op":"Increment","amount":1E+99999}}"#] {
            #expect(throws: JSONSyntaxError.numberOutOfRange) { try JSONValue.parseReporting(text).get() }
        }
        #expect(JSONValue.parse("1e-999999") == .number(0))
        #expect(JSONValue.parse("1.7976931348623157e308") == .number(.greatestFiniteMagnitude))
    }

    @Test func commandsDecodeOrFailToDecode() {
        var hostile = HostileJSON(seed: 2)
        let decoder = JSONValueDecoder()
        for _ in 0..<2_000 {
            let payload = hostile.value()
            var command: [String: JSONValue] = ["type": .string("rest.v1"), "requestId": hostile.value(depth: 3),
                                                "identity": hostile.value(depth: 2), "payload": payload]
            if hostile.chance(50) { command["identity"] = .object(["userId": hostile.value(depth: 3), "roles": hostile.value(depth: 3)]) }
            let bytes = Array(JSONValue.object(command).compactText.utf8)
            _ = try? decoder.decode(Command<RESTRequest>.self, from: bytes)
            _ = try? decoder.decode(Command<CastVote>.self, from: bytes)
            _ = try? decoder.decode(Command<ApplyBallots>.self, from: bytes)
            _ = try? decoder.decode(Command<RunTrigger>.self, from: bytes)
            _ = try? decoder.decode(CommandReply<RESTResponse>.self, from: bytes)
            _ = try? decoder.decode([String: Int].self, from: Array(payload.compactText.utf8))
            _ = try? decoder.decode([Int64].self, from: Array(payload.compactText.utf8))
            _ = try? decoder.decode(UInt8.self, from: Array(payload.compactText.utf8))
        }
    }

    @Test func datesBeyondEveryCalendarAreRefusedOrWrittenAtTheRangesEnd() {
        var hostile = HostileJSON(seed: 3)
        for text in HostileJSON.strings {
            _ = ParseDate.date(from: text)
        }
        for _ in 0..<2_000 {
            let seconds = hostile.pick(HostileJSON.numbers) * (hostile.chance(50) ? 1 : -1) * (hostile.chance(50) ? 1 : 1_000)
            let text = ParseDate.string(from: Date(timeIntervalSince1970: seconds))
            #expect(!text.isEmpty)
        }
        #expect(ParseDate.string(from: Date(timeIntervalSince1970: .infinity)) == ParseDate.string(from: Date(timeIntervalSince1970: 8.64e12)))
        #expect(!ParseDate.string(from: Date(timeIntervalSince1970: .nan)).isEmpty)
    }
}
