#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every connection is a descriptor: the process's soft limit (often 1024) would cap connections far below the
/// configured limit, so it is raised towards the hard limit as needed.
enum OpenFileLimit {
    /// Raises the soft limit to at least `count` where the hard limit allows; returns the limit now in force.
    @discardableResult
    static func raise(toAtLeast count: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return count }
        let wanted = rlim_t(max(0, count))
        guard limit.rlim_cur < wanted else { return Int(clamping: limit.rlim_cur) }
        limit.rlim_cur = min(wanted, limit.rlim_max)  // RLIM_INFINITY is the largest value
        _ = setrlimit(resource, &limit)
        return Int(clamping: limit.rlim_cur)
    }

    private static var resource: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }
}
