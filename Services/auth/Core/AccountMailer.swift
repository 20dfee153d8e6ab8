import Foundation
import ParseWire
import Runtime

/// The verification and password reset mails, worded as parse-server's defaults, with links to the public pages
/// (`<publicServerURL>/apps/...`). A mail that cannot be delivered is logged, never answered to the client: the
/// answer must not tell whether an address belongs to someone. Neither the link nor its token is logged.
struct AccountMailer: Sendable {
    let settings: EmailSettings
    let sender: (any MailSender)?

    init(settings: EmailSettings, sender: (any MailSender)? = nil) {
        self.settings = settings
        self.sender = sender ?? settings.smtp.map { SMTPMailer(options: $0) }
    }

    /// A new single-use token: 32 characters of `[A-Za-z0-9]` (about 190 random bits) and the digest to store.
    static func newToken() -> (token: String, digest: [UInt8]) {
        let token = ObjectId.make(length: 32)
        return (token, SessionTokenDigest.digest(of: token))
    }

    func verificationLink(username: String, token: String) -> String {
        link("\(settings.publicServerURL ?? "")/apps/\(Self.encode(settings.applicationId))/verify_email", username, token)
    }

    func resetLink(username: String, token: String) -> String {
        link("\(settings.publicServerURL ?? "")/apps/\(Self.encode(settings.applicationId))/request_password_reset", username, token)
    }

    func sendVerification(email: String, username: String, token: String, logger: Logger) async {
        let appName = settings.appName ?? ""
        let text = "Hi,\n\nYou are being asked to confirm the e-mail address \(email) with \(appName)\n\n"
            + "Click here to confirm it:\n\(verificationLink(username: username, token: token))"
        await send(Mail(to: email, subject: "Please verify your e-mail for \(appName)", text: text), kind: "verification", logger: logger)
    }

    func sendReset(email: String?, username: String, token: String, logger: Logger) async {
        let appName = settings.appName ?? ""
        let text = "Hi,\n\nYou requested to reset your password for \(appName) (your username is '\(username)').\n\n"
            + "Click here to reset it:\n\(resetLink(username: username, token: token))"
        await send(Mail(to: email ?? username, subject: "Password Reset for \(appName)", text: text), kind: "password-reset", logger: logger)
    }

    private func send(_ mail: Mail, kind: String, logger: Logger) async {
        guard let sender else { return }
        do {
            try await sender.send(mail)
            logger.info("mail sent", ["mail.kind": kind])
        } catch {
            logger.error("mail not sent", ["mail.kind": kind, "error": "\(error)"])
        }
    }

    private func link(_ destination: String, _ username: String, _ token: String) -> String {
        "\(destination)?token=\(Self.encode(token))&username=\(Self.encode(username))"
    }

    /// JavaScript's `encodeURIComponent`.
    static func encode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: "\u{0}"..."\u{7f}"))
        allowed.insert(charactersIn: "-_.!~*'()")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
