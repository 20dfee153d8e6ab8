/// What `EXPLAIN` printed for a statement (`PostgresConnection.genericPlan`).
public struct PostgresPlan: Sendable {
    public let lines: [String]

    /// Each node of the plan (the first line, and every line with `->`) with the lines under it up to the next
    /// node: its conditions and filters.
    public var nodes: [[String]] {
        var nodes: [[String]] = []
        for line in lines {
            if line.contains("->") || nodes.isEmpty { nodes.append([line]) } else { nodes[nodes.count - 1].append(line) }
        }
        return nodes
    }

    public var text: String { lines.joined(separator: "\n") }
}
