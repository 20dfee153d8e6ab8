import CMicroHTTPD

/// Hands an `HTTPResponse` to MHD for sending on a connection.
enum MHDResponseWriter {
    /// `closeConnection` adds `Connection: close` (used while shutting down so clients do not reuse the socket).
    static func queue(_ response: HTTPResponse, on connection: OpaquePointer, closeConnection: Bool = false,
                      tracker: RequestTracker? = nil) -> MHD_Result {
        let created: OpaquePointer?
        if let stream = response.stream {
            created = streamed(stream, on: connection, tracker: tracker)
        } else {
            // MUST_COPY: the response outlives this call and Swift arrays give no pointer that stays valid beyond
            // a closure; MHD then sends straight from its copy.
            created = response.body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress),
                                                .RESPMEM_MUST_COPY)
            }
        }
        guard let mhdResponse = created else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers {
            // MHD refuses Content-Length (it computes it), empty values and values with CR/LF; such a header
            // is dropped rather than failing the whole response.
            _ = MHD_add_response_header(mhdResponse, name, value)
        }
        if closeConnection {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        // 1xx cannot be a final answer; a responder returning one has a bug.
        let status = (200...999).contains(response.status) ? UInt32(response.status) : 500
        return MHD_queue_response(connection, status, mhdResponse)
    }

    /// A body from `HTTPResponseStream`: MHD pulls it in blocks through `responseStreamReader`.
    private static func streamed(_ stream: HTTPResponseStream, on connection: OpaquePointer,
                                 tracker: RequestTracker?) -> OpaquePointer? {
        // A stream only ever answers a request the tracker counts, whose tasks a shutdown stops.
        guard let tracker else { return nil }
        let retained = Unmanaged.passRetained(stream)
        guard let created = MHD_create_response_from_callback(UInt64(stream.length), 64 * 1024, responseStreamReader,
                                                              retained.toOpaque(), responseStreamFree) else {
            retained.release()
            return nil
        }
        stream.tracker = tracker
        tracker.streamStarted(stream)
        stream.start(on: ConnectionHandle(raw: connection), tasks: tracker.tasks)
        return created
    }
}
