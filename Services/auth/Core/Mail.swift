import Foundation

/// One plain-text e-mail, as parse-server's default verification and reset mails are.
struct Mail: Sendable, Equatable {
    var to: String
    var subject: String
    var text: String
}

/// Sends mail; the SMTP client in production, a recorder in unit tests.
protocol MailSender: Sendable {
    func send(_ mail: Mail) async throws
}
