import Foundation
import HTTPServer
import Runtime

/// File uploads take their body as a stream (`HTTPStreamingResponder`), so neither the gateway nor the files
/// service holds a whole file: the server reads the next part from the client only once the previous one is on
/// its way to the files service.
extension GatewayResponder: HTTPStreamingResponder {
    func streamsBody(of head: HTTPRequest) -> Bool {
        // Asked of every request before its answer: the route is worked out only for a method that can upload.
        guard head.method == "POST" else { return false }
        let route = route(of: head)
        guard route.destination == .files, let path = route.path else { return false }
        if case .upload = FileRoute(method: head.method, path: path) { return true }
        return false
    }

    func respond(to head: HTTPRequest, body: HTTPBodyStream) async -> HTTPResponse {
        await respond(to: head, body: body, route: route(of: head))
    }

    func respond(to head: HTTPRequest, body: HTTPBodyStream, route: GatewayRoute) async -> HTTPResponse {
        let requestId = head.headers["X-Parse-Request-Id"] ?? TimeOrderedUUID.string()
        return await TraceContext.$current.withValue(Self.trace(head)) {
            await logged(head, log: logger.with("request.id", requestId)) {
                guard let path = route.path else { return ParseResponses.unknownRoute(head.method, head.path) }
                return await FileRequestHandler(configuration: configuration, client: client, sessions: sessions, logger: logger,
                                                apps: apps)
                    .respondStreamed(to: head, body: body, path: path, requestId: requestId,
                                     serverURL: serverURL(for: head))
            }
        }
    }
}
