import CCurl
import Foundation

/// Delivers mail over SMTP with libcurl. libcurl's easy interface blocks, so each delivery runs on a thread of
/// its own dispatch queue, never on Swift's cooperative pool. libcurl does the dot-stuffing of the message.
struct SMTPMailer: MailSender {
    let options: SMTPOptions

    private static let queue = DispatchQueue(label: "smtp", attributes: .concurrent)
    private static let initialised: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    func send(_ mail: Mail) async throws {
        let message = Array(MailMessage(mail, from: options.fromAddress).text.utf8)
        let options = self.options
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Self.queue.async {
                continuation.resume(with: Result { try Self.deliver(message, to: mail.to, options: options) })
            }
        }
    }

    struct DeliveryError: Error, CustomStringConvertible {
        let description: String
    }

    private final class Upload {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
    }

    private static func deliver(_ message: [UInt8], to recipient: String, options: SMTPOptions) throws {
        guard initialised, let handle = curl_easy_init() else { throw DeliveryError(description: "libcurl did not start") }
        defer { curl_easy_cleanup(handle) }
        let recipients: UnsafeMutablePointer<curl_slist>? = curl_slist_append(nil, "<\(recipient)>")
        defer { curl_slist_free_all(recipients) }
        let upload = Upload(message)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { errorText in
            ccurl_setopt_string(handle, CURLOPT_URL, options.url)
            ccurl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(options.fromAddress)>")
            ccurl_setopt_pointer(handle, CURLOPT_MAIL_RCPT, recipients.map(UnsafeMutableRawPointer.init))
            if options.secure || options.startTLS { ccurl_setopt_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)) }
            if let username = options.username { ccurl_setopt_string(handle, CURLOPT_USERNAME, username) }
            if let password = options.password { ccurl_setopt_string(handle, CURLOPT_PASSWORD, password) }
            ccurl_setopt_long(handle, CURLOPT_TIMEOUT, options.timeout)
            ccurl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
            ccurl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            ccurl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorText.baseAddress)
            ccurl_setopt_callback(handle, CURLOPT_READFUNCTION) { buffer, size, count, userdata in
                guard let buffer, let userdata else { return 0 }
                let upload = Unmanaged<Upload>.fromOpaque(userdata).takeUnretainedValue()
                let length = min(size * count, upload.bytes.count - upload.offset)
                upload.bytes.withUnsafeBufferPointer { bytes in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + upload.offset, byteCount: length)
                }
                upload.offset += length
                return length
            }
            return withExtendedLifetime(upload) {
                ccurl_setopt_pointer(handle, CURLOPT_READDATA, Unmanaged.passUnretained(upload).toOpaque())
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            let detail = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw DeliveryError(description: "SMTP delivery to \(options.url) failed: \(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)")
        }
    }
}
