/// The app a task works for when it is not the stack's own app (the one `PARSE_SERVER_APPLICATION_ID` names): set
/// by the gateway for a request with another app's id, and by each service for a command that carries one, so every
/// command, event and database connection the work leads to is that app's. Nil is the stack's own app, whose
/// messages carry no app at all: one stack with one app sends exactly what it sent before apps existed.
public enum AppContext {
    @TaskLocal public static var current: String?

    /// The AMQP header a command's app travels in (`Envelope`).
    public static let header = "x-parse-app"

    /// Whether `id` can name an app created at run time: letters, digits, `_` and `-`, at most 40 bytes, so that it
    /// is one word of a routing key and part of a database name as it is.
    public static func isValidId(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 40 && id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// The routing key an event of `app` is published under: the stack's own app's are unchanged
    /// (`vote.cast.Cat`), another app's start with its id (`app.<id>.vote.cast.Cat`), so a consumer binds to one
    /// app's events (`app.<id>.#`) and bindings made for the stack's own app never see another's.
    public static func routingKey(_ key: String, app: String?) -> String {
        guard let app else { return key }
        return "app.\(app).\(key)"
    }

    /// The app whose event was published under `key` (`routingKey`): nil for the stack's own app.
    public static func app(ofRoutingKey key: String) -> String? {
        guard key.hasPrefix("app.") else { return nil }
        let rest = key.dropFirst(4)
        guard let dot = rest.firstIndex(of: ".") else { return nil }
        let app = String(rest[..<dot])
        return isValidId(app) ? app : nil
    }

    /// The bindings of `keys` for every app: the stack's own app's as they are, and each other app's
    /// (`app.*.<key>`), for a consumer that serves them all and tells them apart by `app(ofRoutingKey:)`.
    public static func everyApp(_ keys: [String]) -> [String] {
        keys + keys.map { "app.*.\($0)" }
    }
}
