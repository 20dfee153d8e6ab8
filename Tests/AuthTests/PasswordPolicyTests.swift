@testable import AuthCore
import Foundation
import ParseWire
import Testing

struct PasswordPolicyTests {
    @Test func patternAndUsernameRulesWithParseServerMessages() throws {
        let policy = try #require(try PasswordPolicy.parse(#"{"validatorPattern":"^(?=.*[0-9]).{8,}$","doNotAllowUsername":true}"#))
        #expect(throws: policy.requirementError) { try policy.check("short1", username: "al") }
        #expect(policy.requirementError.message == "Password does not meet the Password Policy requirements.")
        #expect(throws: PasswordPolicy.containsUsername) { try policy.check("xx-alice-99", username: "alice") }
        try policy.check("long-enough-1", username: "alice")
        let custom = try #require(try PasswordPolicy.parse(#"{"validatorPattern":"[A-Z]","validationError":"Needs a capital."}"#))
        #expect(throws: ParseError(.validationError, "Needs a capital.")) { try custom.check("lower", username: nil) }
    }

    @Test func ageAndBadSettings() throws {
        let policy = try #require(try PasswordPolicy.parse(#"{"maxPasswordAge":1,"maxPasswordHistory":3}"#))
        #expect(policy.hasExpired(changedAt: Date().addingTimeInterval(-2 * 86_400)))
        #expect(!policy.hasExpired(changedAt: Date().addingTimeInterval(-3_600)))
        #expect(policy.historyError().message == "New password should not be the same as last 3 passwords.")
        for bad in [#"{"maxPasswordHistory":21}"#, #"{"maxPasswordAge":-1}"#, #"{"validatorPattern":"("}"#,
                    #"{"resetTokenReuseIfValid":true}"#, #"{"validatorCallback":"x"}"#, "[]"] {
            #expect(throws: (any Error).self, "\(bad)") { try PasswordPolicy.parse(bad) }
        }
    }
}
