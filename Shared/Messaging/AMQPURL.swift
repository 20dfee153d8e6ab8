import Foundation

/// `amqp://user:password@host:port/vhost`, as RabbitMQ documents it. The vhost is percent-decoded
/// (`%2F` is `/`); an empty path means the default vhost `/`.
public struct AMQPURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String
    public var vhost: String

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text), components.scheme == "amqp",
              let host = components.host, !host.isEmpty else {
            throw MessagingError.invalidURL(text)
        }
        self.host = host
        self.port = components.port ?? 5672
        self.user = components.user ?? "guest"
        self.password = components.password ?? "guest"
        let path = components.percentEncodedPath
        self.vhost = path.isEmpty || path == "/" ? "/" : (String(path.dropFirst()).removingPercentEncoding ?? "/")
    }

    /// Without the password, for logs.
    public var description: String { "amqp://\(user)@\(host):\(port)/\(vhost == "/" ? "" : vhost)" }
}
