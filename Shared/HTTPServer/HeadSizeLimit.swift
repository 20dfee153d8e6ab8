/// Which request heads get 431 before any answer is tried. libmicrohttpd keeps a request's head, and one record per
/// header, cookie and query argument, in the connection's memory (`connectionMemoryLimit`), and builds the answer's
/// head in what is left. It takes any head that fits, so a head that nearly filled the memory was read and handled,
/// and then its connection closed unanswered.
struct HeadSizeLimit: Sendable {
    /// `struct MHD_HTTP_Header`: key and value pointers and lengths, the kind, the next record.
    static let entryBytes = 48
    /// Kept free for the answer's head: its status line and headers (the CORS headers alone take about 450 bytes).
    static let answerHeadBytes = 4 * 1024

    let maxHeadBytes: Int
    let connectionMemory: Int

    func admits(headBytes: Int, entries: Int) -> Bool {
        headBytes <= maxHeadBytes && headBytes + entries * Self.entryBytes <= connectionMemory - Self.answerHeadBytes
    }
}
