import CMicroHTTPD
import Dispatch

// MHD's per-connection callbacks (outside `main.swift` on purpose, like the request callbacks).

/// Keeps a `ConnectionRecord` for each connection in MHD's `socket_context`, from its accept to its close.
let mhdConnectionNotify: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let connection, let socketContext else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if code == .CONNECTION_NOTIFY_STARTED {
        let record = ConnectionRecord(descriptor: CMHD_connection_fd(connection),
                                      now: DispatchTime.now().uptimeNanoseconds)
        socketContext.pointee = Unmanaged.passRetained(record).toOpaque()
        core.connections.opened(record)
    } else if code == .CONNECTION_NOTIFY_CLOSED, let pointer = socketContext.pointee {
        socketContext.pointee = nil
        core.connections.closed(Unmanaged<ConnectionRecord>.fromOpaque(pointer).takeRetainedValue())
    }
}

/// Called by MHD with a request's target before it decodes `%XX` and cuts it at the first NUL byte: what
/// `HeadIntegrity` needs to refuse a NUL in the path. The result is MHD's first request pointer (none here).
let mhdURILog: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?)
    -> UnsafeMutableRawPointer? = { _, uri, connection in
    guard let uri, let connection, let record = connectionRecord(connection) else { return nil }
    record.target = RawTarget(scanning: uri)
    return nil
}

/// The record `mhdConnectionNotify` attached to `connection`.
func connectionRecord(_ connection: OpaquePointer) -> ConnectionRecord? {
    CMHD_connection_socket_context(connection).map { Unmanaged<ConnectionRecord>.fromOpaque($0).takeUnretainedValue() }
}

extension RawTarget {
    /// The length up to the first NUL (which is where MHD's C string ends), and whether the path, before any
    /// `?`, holds `%00`.
    init(scanning uri: UnsafePointer<CChar>) {
        var length = 0
        var inPath = true
        var encodesNUL = false
        while uri[length] != 0 {
            let byte = UInt8(bitPattern: uri[length])
            if byte == UInt8(ascii: "?") { inPath = false }
            if inPath, byte == UInt8(ascii: "%"), uri[length + 1] == 0x30, uri[length + 2] == 0x30 { encodesNUL = true }
            length += 1
        }
        self.init(length: length, encodesNUL: encodesNUL)
    }
}
