import CMicroHTTPD

/// Reads a request head out of MHD once its headers are parsed (the first access-handler call).
enum MHDRequestReader {
    static func head(of connection: OpaquePointer, method: UnsafePointer<CChar>, path: UnsafePointer<CChar>)
        -> HTTPRequest {
        let headers = pairs(of: connection, kind: .HEADER_KIND)
        let query = pairs(of: connection, kind: .GET_ARGUMENT_KIND).map { QueryItem(name: $0.0, value: $0.1) }
        let remote = CMHD_connection_client_address(connection).map { BindAddress.text(of: $0) } ?? ""
        return HTTPRequest(method: String(cString: method), path: String(cString: path), query: query,
                           headers: HTTPHeaders(headers), remoteAddress: remote)
    }

    /// MHD's values in arrival order, with their lengths (a decoded query value may contain NUL). A query key
    /// sent without "=" has no value in MHD and reads as "".
    private static func pairs(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(String, String)] {
        var collected: [(String, String)] = []
        withUnsafeMutablePointer(to: &collected) { target in
            _ = MHD_get_connection_values_n(connection, kind, collectPair, target)
        }
        return collected
    }
}

/// Iterator for `MHD_get_connection_values_n`; `cls` points at the `[(String, String)]` being filled.
private let collectPair: MHD_KeyValueIteratorN = { cls, _, key, keySize, value, valueSize in
    guard let cls else { return .NO }
    let target = cls.assumingMemoryBound(to: [(String, String)].self)
    target.pointee.append((text(key, keySize), text(value, valueSize)))
    return .YES
}

private func text(_ pointer: UnsafePointer<CChar>?, _ count: Int) -> String {
    guard let pointer, count > 0 else { return "" }
    return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
}
