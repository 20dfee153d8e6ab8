import CCurl
import Foundation
import Runtime
import Synchronization

/// One transfer a `CurlMultiLoop` runs: it sets up the handle, and is told how the transfer ended (or that it could
/// not start). Only the loop's thread calls it once submitted.
public protocol CurlJob: AnyObject, Sendable {
    func configure(_ handle: CurlEasy)
    func finish(_ code: CURLcode, on handle: CurlEasy)
    func fail(_ why: String)
}

/// A libcurl multi handle and the thread that drives it: transfers are handed over (`submit`), the thread adds them to
/// the multi handle, runs every transfer under way, answers those that ended, and sleeps in `curl_multi_poll` until
/// a socket is ready, a call arrives (`curl_multi_wakeup`) or a second passes. A thread of its own, not a dispatch
/// queue: on Linux those queues' threads are the ones Swift's tasks run on, and a blocked one starves them. The
/// thread starts with the first call and lives as long as the process (a client is made once per process).
public final class CurlMultiLoop: @unchecked Sendable {
    private let label: String
    private let multi: UnsafeMutableRawPointer?
    private let pending = Mutex<[any CurlJob]>([])
    private let started = Mutex(false)
    /// The loop thread's own state.
    private var running: [UnsafeMutableRawPointer: (transfer: any CurlJob, handle: CurlEasy)] = [:]
    private var idle: [CurlEasy] = []
    private static let maxIdle = 64

    public init(label: String) {
        self.label = label
        _ = CurlEasy.started
        multi = curl_multi_init()
    }

    public func submit(_ transfer: any CurlJob) {
        guard let multi else {
            transfer.fail("libcurl did not start")
            return
        }
        pending.withLock { $0.append(transfer) }
        let start = started.withLock { started -> Bool in
            defer { started = true }
            return !started
        }
        if start {
            // The one thread this loop owns, for the life of the process (see the type's comment).
            DedicatedThread.start(label) { [self] in run() }
        } else {
            curl_multi_wakeup(multi)
        }
    }

    private func run() {
        guard let multi else { return }
        while true {
            for transfer in pending.withLock({ list -> [any CurlJob] in defer { list = [] }; return list }) {
                guard let handle = idle.popLast() ?? CurlEasy() else {
                    transfer.fail("libcurl did not start")
                    continue
                }
                transfer.configure(handle)
                guard curl_multi_add_handle(multi, handle.pointer) == CURLM_OK else {
                    transfer.fail("libcurl refused the transfer")
                    handle.reset()
                    idle.append(handle)
                    continue
                }
                running[handle.pointer] = (transfer, handle)
            }
            var active: Int32 = 0
            curl_multi_perform(multi, &active)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                      let (transfer, handle) = running.removeValue(forKey: easy) else { continue }
                let code = message.pointee.data.result
                curl_multi_remove_handle(multi, easy)
                transfer.finish(code, on: handle)
                handle.reset()
                if idle.count < Self.maxIdle { idle.append(handle) }
            }
            curl_multi_poll(multi, nil, 0, 1_000, nil)
        }
    }
}
