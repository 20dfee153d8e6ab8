import CMicroHTTPD

/// MHD's special return values for content readers.
enum CMHDReader {
    static let endOfStream = CMHD_READER_END_OF_STREAM
    static let error = CMHD_READER_END_WITH_ERROR
}

/// MHD's content reader for `HTTPResponseStream`; `cls` is the stream, retained until `responseStreamFree`.
let responseStreamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    guard let cls, let buffer else { return CMHD_READER_END_WITH_ERROR }
    let stream = Unmanaged<HTTPResponseStream>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(into: UnsafeMutableRawPointer(buffer), max: max)
}

/// Called when MHD has finished with the response (sent, or the client left).
let responseStreamFree: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let stream = Unmanaged<HTTPResponseStream>.fromOpaque(cls).takeRetainedValue()
    stream.cancel()
    stream.tracker?.streamEnded(stream)
}
