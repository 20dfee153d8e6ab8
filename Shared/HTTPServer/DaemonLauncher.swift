#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CMicroHTTPD

/// Starts an MHD daemon for a `ServerCore`. `MHD_start_daemon` is C-variadic, so every option goes in one
/// `MHD_OptionItem` array passed through `MHD_start_daemon_va` as `MHD_OPTION_ARRAY`.
enum DaemonLauncher {
    struct Daemon {
        let pointer: OpaquePointer
        let port: UInt16
        /// The reference the daemon's callbacks use; released once the daemon is stopped.
        let core: Unmanaged<ServerCore>
    }

    static func start(_ core: ServerCore) throws(HTTPServerError) -> Daemon {
        let configuration = core.configuration
        let bindAddress = try BindAddress(host: configuration.host, port: configuration.port)
        // Room for every connection allowed, and for the process's other descriptors (broker, logs, pipes).
        OpenFileLimit.raise(toAtLeast: configuration.connectionLimit + 256)
        var flags = MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
            | MHD_USE_ERROR_LOG.rawValue
        if configuration.upgradeUpstream != nil {
            flags |= MHD_ALLOW_UPGRADE.rawValue
            core.relay.start()
        }
        if bindAddress.isIPv6 { flags |= MHD_USE_IPv6.rawValue }

        let retained = Unmanaged.passRetained(core)
        let started: OpaquePointer? = bindAddress.withSocketAddress { socketAddress in
            var options = optionItems(configuration, socketAddress: socketAddress, core: retained.toOpaque())
            return options.withUnsafeMutableBufferPointer { items in
                withVaList([MHD_OPTION.ARRAY.rawValue, items.baseAddress!, MHD_OPTION.END.rawValue]) { arguments in
                    MHD_start_daemon_va(flags, configuration.port, nil, nil, mhdAccessHandler,
                                        retained.toOpaque(), arguments)
                }
            }
        }
        guard let started else {
            let reason = String(cString: strerror(errno))
            retained.release()
            throw .cannotStart("cannot listen on \(configuration.host) port \(configuration.port): \(reason)")
        }
        return Daemon(pointer: started, port: CMHD_daemon_bound_port(started), core: retained)
    }

    private static func optionItems(_ configuration: HTTPServerConfiguration,
                                    socketAddress: UnsafeMutablePointer<sockaddr>,
                                    core: UnsafeMutableRawPointer) -> [MHD_OptionItem] {
        func item(_ option: MHD_OPTION, _ value: Int, _ pointer: UnsafeMutableRawPointer? = nil) -> MHD_OptionItem {
            MHD_OptionItem(option: option, value: value, ptr_value: pointer)
        }
        var items = [
            item(.CONNECTION_LIMIT, max(1, configuration.connectionLimit)),
            item(.CONNECTION_TIMEOUT, max(0, configuration.connectionTimeoutSeconds)),
            item(.CONNECTION_MEMORY_LIMIT, max(4096, configuration.connectionMemoryLimit)),
            item(.LISTEN_BACKLOG_SIZE, 1024),
            // Refuses what RFC 9112 forbids (for example a missing Host or whitespace before a colon).
            item(.STRICT_FOR_CLIENT, 1),
            // Two-value options: the function goes in `value`, its argument in `ptr_value`.
            item(.NOTIFY_COMPLETED, functionAddress(mhdRequestCompleted), core),
            item(.NOTIFY_CONNECTION, functionAddress(mhdConnectionNotify), core),
            item(.URI_LOG_CALLBACK, functionAddress(mhdURILog), core),
            item(.SOCK_ADDR, 0, UnsafeMutableRawPointer(socketAddress)),
        ]
        if configuration.threads > 1 {
            items.append(item(.THREAD_POOL_SIZE, configuration.threads))
        }
        if configuration.perIPConnectionLimit > 0 {
            items.append(item(.PER_IP_CONNECTION_LIMIT, configuration.perIPConnectionLimit))
        }
        if configuration.errorLog != nil {
            items.append(item(.EXTERNAL_LOGGER, functionAddress(mhdErrorLog), core))
        }
        items.append(item(.END, 0))
        return items
    }

    private static func functionAddress<Function>(_ function: Function) -> Int {
        Int(bitPattern: unsafeBitCast(function, to: UnsafeRawPointer.self))
    }
}

/// Formats one MHD error message and hands it to the configured sink (`cls` is the `ServerCore`).
let mhdErrorLog: MHD_LogCallback = { cls, format, arguments in
    guard let cls, let format, let arguments else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    guard let sink = core.configuration.errorLog else { return }
    var buffer = [CChar](repeating: 0, count: 1024)
    guard vsnprintf(&buffer, buffer.count, format, arguments) > 0 else { return }
    var message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while message.last == "\n" || message.last == "\r" { message.removeLast() }
    sink(message)
}
