import CCurl
import Foundation
import HTTPClient

/// Delivers mail over SMTP with libcurl, on the same plumbing as the HTTP client: each delivery is a transfer of
/// one multi handle driven by a thread of its own (`CurlMultiLoop`), never a thread Swift's tasks need. libcurl
/// does the dot-stuffing of the message.
struct SMTPMailer: MailSender {
    let options: SMTPOptions

    private static let loop = CurlMultiLoop(label: "smtp")

    func send(_ mail: Mail) async throws {
        let message = Array(MailMessage(mail, from: options.fromAddress).text.utf8)
        let options = self.options
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Self.loop.submit(SMTPDelivery(message, to: mail.to, options: options, continuation: continuation))
        }
    }

    struct DeliveryError: Error, CustomStringConvertible {
        let description: String
    }
}

/// One mail on its way: the message libcurl reads, the recipient list and the error text it fills.
private final class SMTPDelivery: CurlJob, @unchecked Sendable {
    let message: [UInt8]
    let recipient: String
    let options: SMTPOptions
    private var continuation: CheckedContinuation<Void, any Error>?
    private var offset = 0
    private var recipients: UnsafeMutablePointer<curl_slist>?
    private let errorText = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

    init(_ message: [UInt8], to recipient: String, options: SMTPOptions, continuation: CheckedContinuation<Void, any Error>) {
        self.message = message
        self.recipient = recipient
        self.options = options
        self.continuation = continuation
        errorText.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    deinit { errorText.deallocate() }

    func configure(_ handle: CurlEasy) {
        let curl = handle.pointer
        handle.prepare(url: options.url, timeoutMilliseconds: options.timeout * 1_000)
        recipients = curl_slist_append(nil, "<\(recipient)>")
        ccurl_setopt_string(curl, CURLOPT_MAIL_FROM, "<\(options.fromAddress)>")
        ccurl_setopt_pointer(curl, CURLOPT_MAIL_RCPT, recipients.map(UnsafeMutableRawPointer.init))
        if options.secure || options.startTLS { ccurl_setopt_long(curl, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)) }
        if let username = options.username { ccurl_setopt_string(curl, CURLOPT_USERNAME, username) }
        if let password = options.password { ccurl_setopt_string(curl, CURLOPT_PASSWORD, password) }
        ccurl_setopt_long(curl, CURLOPT_UPLOAD, 1)
        ccurl_setopt_pointer(curl, CURLOPT_ERRORBUFFER, errorText)
        ccurl_setopt_callback(curl, CURLOPT_READFUNCTION) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            let delivery = Unmanaged<SMTPDelivery>.fromOpaque(userdata).takeUnretainedValue()
            let length = min(size * count, delivery.message.count - delivery.offset)
            delivery.message.withUnsafeBufferPointer { bytes in
                UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + delivery.offset, byteCount: length)
            }
            delivery.offset += length
            return length
        }
        ccurl_setopt_pointer(curl, CURLOPT_READDATA, Unmanaged.passUnretained(self).toOpaque())
    }

    func finish(_ code: CURLcode, on handle: CurlEasy) {
        guard code == CURLE_OK else {
            let detail = String(cString: errorText)
            fail("SMTP delivery to \(options.url) failed: \(detail.isEmpty ? CurlEasy.describe(code) : detail)")
            return
        }
        release()
        continuation?.resume()
        continuation = nil
    }

    func fail(_ why: String) {
        release()
        continuation?.resume(throwing: SMTPMailer.DeliveryError(description: why))
        continuation = nil
    }

    private func release() {
        curl_slist_free_all(recipients)
        recipients = nil
    }
}
