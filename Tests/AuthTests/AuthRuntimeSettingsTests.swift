import ParseWire
import Testing
@testable import AuthCore

/// The settings auth lets `/settings` change: each value checked, applied over the start-up ones, and listed back.
@Suite struct AuthRuntimeSettingsTests {
    static let owner = AuthRuntimeSettings(startUp: .defaults)

    @Test func withoutChangesTheStartUpValuesHold() throws {
        let settings = try Self.owner.settings(with: [:])
        #expect(settings["sessionLength"] == .number(31_536_000))
        #expect(settings["passwordPolicy"] == .null)
        #expect(settings["verifyUserEmails"] == .bool(false))
        #expect(settings["emailVerifyTokenValidityDuration"] == .null)
    }

    @Test func changesApplyAndAPolicyReadsBackAsItWasGiven() throws {
        let policy = JSONValue.object(["validatorPattern": .string("^.{12,}$"), "maxPasswordHistory": .number(3),
                                       "doNotAllowUsername": .bool(true)])
        let applied = try Self.owner.applying(["sessionLength": .number(600), "passwordPolicy": policy,
                                               "preventLoginWithUnverifiedEmail": .bool(true)])
        #expect(applied.sessionLength == 600)
        #expect(applied.passwordPolicy?.maxPasswordHistory == 3)
        #expect(applied.email.preventLoginWithUnverifiedEmail)
        #expect(applied.passwordPolicy?.json == policy)
        #expect(try Self.owner.applying(["passwordPolicy": .object([:])]).passwordPolicy == PasswordPolicy())
    }

    @Test(arguments: [
        ["sessionLength": JSONValue.number(0)], ["sessionLength": .string("1h")], ["passwordPolicy": .string("strict")],
        ["passwordPolicy": .object(["validatorPattern": .string("(")])], ["verifyUserEmails": .number(1)],
        ["emailVerifyTokenValidityDuration": .number(0)],
        // No app name, public URL or e-mail adapter at start: verification mails could not be sent.
        ["verifyUserEmails": .bool(true)],
    ])
    func aValueAuthCannotTakeIsRefused(_ overrides: [String: JSONValue]) {
        let error = #expect(throws: ParseError.self) { _ = try Self.owner.applying(overrides) }
        #expect(error?.code == .invalidJSON)
        #expect(error?.message.contains("PARSE_SERVER_PASSWORD_POLICY:") == false)
    }

    @Test func onlyWritesLoginsAndAccountPagesReadTheSettings() {
        #expect(AuthRuntimeSettings.appliesTo(method: "POST", path: "users"))
        #expect(AuthRuntimeSettings.appliesTo(method: "GET", path: "login"))
        #expect(AuthRuntimeSettings.appliesTo(method: "GET", path: "apps/myAppId/verify_email"))
        #expect(!AuthRuntimeSettings.appliesTo(method: "GET", path: "users/me"))
        #expect(!AuthRuntimeSettings.appliesTo(method: "GET", path: "classes/_User"))
    }
}
