import Contracts
import ParseWire
import Testing

/// parse-server's `transformPushBodyForLocale` and `groupByLocaleIdentifier`, per device.
struct PushLocalizationTests {
    static let data: [String: JSONValue] = ["alert": .string("Hello"), "alert-fr": .string("Bonjour"),
                                            "alert-fr-CA": .string("Allô"), "title-fr": .string("Salut"), "badge": .number(1)]

    @Test func aDeviceGetsItsLocalesTextAndNoLocaleKeys() {
        #expect(PushLocalization.data(Self.data, localeIdentifier: "fr-FR")
                == ["alert": .string("Bonjour"), "title": .string("Salut"), "badge": .number(1)])
        #expect(PushLocalization.data(Self.data, localeIdentifier: "fr-CA")["alert"] == .string("Allô"))
        #expect(PushLocalization.data(Self.data, localeIdentifier: "de-DE") == ["alert": .string("Hello"), "badge": .number(1)])
        #expect(PushLocalization.data(Self.data, localeIdentifier: nil) == ["alert": .string("Hello"), "badge": .number(1)])
    }

    @Test func dataWithoutLocalesIsUntouched() {
        let plain: [String: JSONValue] = ["alert": .string("Hi"), "alertness": .string("high")]
        #expect(PushLocalization.data(plain, localeIdentifier: "fr") == plain)
    }
}
