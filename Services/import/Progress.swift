import Foundation

/// Progress on the terminal: one line rewritten in place when stderr is a terminal, nothing otherwise.
final class Progress: Sendable {
    let total: Int
    private let isTerminal = isatty(STDERR_FILENO) == 1

    init(total: Int) { self.total = total }

    func update(done: Int, failed: Int) {
        guard isTerminal else { return }
        let percent = total == 0 ? 100 : done * 100 / total
        let width = 30, filled = total == 0 ? width : done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = "\r[\(bar)] \(done)/\(total) (\(percent)%)" + (failed > 0 ? " \(failed) failed" : "")
        FileHandle.standardError.write(Data(line.utf8))
        if done >= total { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}
