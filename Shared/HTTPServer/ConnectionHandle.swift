import CMicroHTTPD

/// An MHD connection pointer that may travel to the task answering its request.
///
/// `@unchecked Sendable` because the pointer is owned by the MHD thread serving the connection; the only use
/// made of it away from that thread is `MHD_resume_connection`, which MHD documents as callable from any
/// thread, and only while the connection is suspended (so MHD cannot have freed it).
struct ConnectionHandle: @unchecked Sendable {
    let raw: OpaquePointer

    func resume() {
        MHD_resume_connection(raw)
    }

    /// Only from MHD's own callbacks for this connection, on the thread serving it.
    func suspend() {
        MHD_suspend_connection(raw)
    }
}
