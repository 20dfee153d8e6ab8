#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Dispatch
import Synchronization

/// What the server knows of one open connection, from MHD's connection notifications. Reached from MHD's
/// per-connection `socket_context`; its mutable fields are guarded by the registry's lock.
final class ConnectionRecord: @unchecked Sendable {  // Safe: mutable state is only touched under the registry's lock.
    let descriptor: Int32
    /// When the connection began waiting for a request head (its accept, or the end of its previous request);
    /// nil while a request is in progress.
    fileprivate var awaitingHeadSince: UInt64?
    fileprivate var shutDown = false
    /// The request target as it arrived, before MHD decoded it, for `HeadIntegrity`. Only the connection's own MHD
    /// thread touches it (set by the URI log callback, read by the first access-handler call), so it needs no lock.
    var target = RawTarget()

    init(descriptor: Int32, now: UInt64) {
        self.descriptor = descriptor
        awaitingHeadSince = now
    }
}

/// The request target of the request being read, as MHD's URI log callback saw it: `%00` in its path, and its
/// length up to the first NUL byte (compared later with its real length).
struct RawTarget: Sendable {
    var length = 0
    var encodesNUL = false
}

/// Every open connection, so that one that takes too long to send a request head can be closed: MHD's own
/// timeout counts only silence, and a client sending a byte every few seconds would keep a connection forever.
final class ConnectionRegistry: Sendable {
    private let records = Mutex<[ObjectIdentifier: ConnectionRecord]>([:])

    var count: Int { records.withLock { $0.count } }

    func opened(_ record: ConnectionRecord) {
        records.withLock { $0[ObjectIdentifier(record)] = record }
    }

    /// MHD reports a close before it closes the socket, so a descriptor found here is still the connection's.
    func closed(_ record: ConnectionRecord) {
        _ = records.withLock { $0.removeValue(forKey: ObjectIdentifier(record)) }
    }

    func requestBegan(_ record: ConnectionRecord) {
        records.withLock { _ in record.awaitingHeadSince = nil }
    }

    func requestEnded(_ record: ConnectionRecord) {
        let now = DispatchTime.now().uptimeNanoseconds
        records.withLock { _ in record.awaitingHeadSince = now }
    }

    /// Shuts down the sockets of connections that have waited longer than `limit` for a complete request head;
    /// MHD then sees them end and closes them. Returns how many.
    @discardableResult
    func shutDownStalled(waitingLongerThan limit: Duration) -> Int {
        let now = DispatchTime.now().uptimeNanoseconds
        let allowed = UInt64(max(0, limit.components.seconds)) * 1_000_000_000
            + UInt64(max(0, limit.components.attoseconds / 1_000_000_000))
        return records.withLock { records in
            var count = 0
            for record in records.values where !record.shutDown {
                guard let since = record.awaitingHeadSince, now > since, now - since > allowed else { continue }
                record.shutDown = true
                shutdown(record.descriptor, Int32(SHUT_RDWR))
                count += 1
            }
            return count
        }
    }
}
