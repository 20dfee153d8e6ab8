import Foundation

/// A mail as it goes over SMTP: RFC 5322 headers (non-ASCII words encoded as RFC 2047 says), a UTF-8 text body,
/// CRLF line ends.
struct MailMessage {
    let text: String

    init(_ mail: Mail, from: String, date: Date = Date(), messageId: String = UUID().uuidString) {
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let headers = [
            "From: \(from)", "To: \(mail.to)", "Subject: \(Self.encodedWord(mail.subject))",
            "Date: \(formatter.string(from: date))", "Message-ID: <\(messageId)@\(domain)>", "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit",
        ]
        let body = mail.text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        text = headers.joined(separator: "\r\n") + "\r\n\r\n" + body + "\r\n"
    }

    /// The header as is when it is plain ASCII, else `=?UTF-8?B?...?=`; line breaks never reach a header.
    static func encodedWord(_ text: String) -> String {
        let flat = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flat.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) { return flat }
        return "=?UTF-8?B?\(Data(flat.utf8).base64EncodedString())?="
    }
}
