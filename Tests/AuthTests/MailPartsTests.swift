@testable import AuthCore
import Foundation
import Testing

struct MailPartsTests {
    @Test func messageHeadersAndLineEnds() {
        let mail = Mail(to: "a@example.com", subject: "Password Reset for Café\r\nBcc: x@evil.com", text: "Hi,\n\nline")
        let text = MailMessage(mail, from: "app@example.com", date: Date(timeIntervalSince1970: 0), messageId: "m1").text
        #expect(text.hasPrefix("From: app@example.com\r\nTo: a@example.com\r\nSubject: =?UTF-8?B?"))
        #expect(!text.contains("\r\nBcc:"))
        #expect(text.contains("Date: Thu, 01 Jan 1970 00:00:00 +0000\r\nMessage-ID: <m1@example.com>"))
        #expect(text.hasSuffix("\r\n\r\nHi,\r\n\r\nline\r\n"))
        #expect(MailMessage.encodedWord("Plain") == "Plain")
    }

    @Test func formsAndLinks() {
        #expect(FormFields.parse("username=al+bo&token=a%2Bb&new_password=p%26q&username=second") ==
                ["username": "al bo", "token": "a+b", "new_password": "p&q"])
        #expect(FormFields.encode([("username", "al bo"), ("app", nil), ("error", "a&b")]) == "username=al%20bo&error=a%26b")
        #expect(AccountMailer.encode("a b/c?d=é'(*)") == "a%20b%2Fc%3Fd%3D%C3%A9'(*)")
        #expect(PublicPages.escape("<a href=\"x\">'&") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;")
    }

    @Test func smtpOptions() throws {
        let options = try SMTPOptions.parse(#"{"module":"smtp","options":{"host":"mail.example.com","secure":true,"user":"u","password":"p","fromAddress":"app@example.com"}}"#)
        #expect(options.url == "smtps://mail.example.com:465")
        #expect(options.username == "u")
        #expect(try SMTPOptions.parse(#"{"host":"::1","port":2525,"fromAddress":"a@b.c"}"#).url == "smtp://[::1]:2525")
        for bad in [#"{"options":{"host":"h"}}"#, #"{"module":"mailgun","options":{"host":"h","fromAddress":"a@b.c"}}"#, "nope"] {
            #expect(throws: (any Error).self) { try SMTPOptions.parse(bad) }
        }
    }
}
