/// Where a function, job or trigger runs: a webhook URL (parse-server's Hooks API) or the queue of workers that
/// registered it.
enum CloudTarget: Sendable, Equatable {
    case webhook(url: String)
    case worker(queue: String)

    var description: String {
        switch self {
        case .webhook(let url): "webhook \(url)"
        case .worker(let queue): "worker queue \(queue)"
        }
    }
}
