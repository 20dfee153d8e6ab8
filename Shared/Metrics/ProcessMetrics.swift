#if canImport(Glibc)
import Glibc
#endif

/// The process's resident memory, CPU time, open descriptors and start time, read from `/proc/self` when the
/// metrics are written (the names the Prometheus client libraries use, so existing dashboards work).
public enum ProcessMetrics {
    public static func register(in registry: MetricsRegistry = .shared) {
        registry.collect("process") { samples() }
    }

    static func samples() -> [Sample] {
        var samples: [Sample] = []
        if let stat = readFile("/proc/self/stat"), let fields = statFields(stat), fields.count > 21 {
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
            // Fields after the command's closing parenthesis start at field 3 (state): utime is 14, stime 15,
            // starttime 22, vsize 23, rss 24 in proc(5)'s numbering.
            if let user = Double(fields[11]), let system = Double(fields[12]) {
                samples.append(Sample("process_cpu_seconds_total", help: "Total user and system CPU time spent in seconds.",
                                      kind: .counter, value: (user + system) / ticks))
            }
            if let virtual = Double(fields[20]) {
                samples.append(Sample("process_virtual_memory_bytes", help: "Virtual memory size in bytes.", value: virtual))
            }
            if let resident = Double(fields[21]) {
                samples.append(Sample("process_resident_memory_bytes", help: "Resident memory size in bytes.",
                                      value: resident * pageSize))
            }
            if let started = Double(fields[19]), let boot = bootTime() {
                samples.append(Sample("process_start_time_seconds",
                                      help: "Start time of the process since unix epoch in seconds.",
                                      value: boot + started / ticks))
            }
        }
        if let open = openDescriptors() {
            samples.append(Sample("process_open_fds", help: "Number of open file descriptors.", value: Double(open)))
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
            samples.append(Sample("process_max_fds", help: "Maximum number of open file descriptors.",
                                  value: Double(limit.rlim_cur)))
        }
        return samples
    }

    /// The fields after `(comm)`: the command name may hold spaces and parentheses, so the split starts after the
    /// last `)`.
    static func statFields(_ stat: String) -> [Substring]? {
        guard let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    private static func bootTime() -> Double? {
        guard let text = readFile("/proc/stat") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst(6).trimmingCharacters())
        }
        return nil
    }

    private static func openDescriptors() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let isDot = withUnsafeBytes(of: entry.pointee.d_name) { $0.first == UInt8(ascii: ".") }
            if !isDot { count += 1 }
        }
        // The directory being read is open too while it is counted.
        return max(0, count - 1)
    }

    /// A small file of /proc, read with plain system calls (their size shows as 0, so read until the end).
    static func readFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " || text.last == "\n" { text = text.dropLast() }
        return text
    }
}
