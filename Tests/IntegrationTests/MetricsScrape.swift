import Foundation

/// One reading of a process's `/metrics`: every series by its name and labels, as written.
struct MetricsScrape {
    struct Series: Hashable {
        var name: String
        var labels: [String: String]
    }

    let values: [Series: Double]
    let text: String

    /// The processes' metrics URLs, from `deploy/stack test` (`gateway=http://...,auth=http://...`).
    static let urls: [String: String] = {
        let text = TestStack.environment["PARSE_TEST_METRICS_URLS"] ?? ""
        var urls: [String: String] = [:]
        for item in text.split(separator: ",") {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { urls[parts[0]] = parts[1] }
        }
        return urls
    }()

    static func of(_ process: String, headers: [String: String] = [:]) async throws -> MetricsScrape {
        guard let url = urls[process] else { throw PostsTestError(description: "no metrics URL for \(process)") }
        let reply = try await HTTP.send("GET", "", headers: headers, base: url)
        guard reply.status == 200 else { throw PostsTestError(description: "\(process) /metrics: \(reply.status) \(reply.text)") }
        return MetricsScrape(text: reply.text)
    }

    init(text: String) {
        self.text = text
        var values: [Series: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            let key = line[..<space]
            guard let open = key.firstIndex(of: "{") else {
                values[Series(name: String(key), labels: [:])] = value
                continue
            }
            values[Series(name: String(key[..<open]), labels: Self.labels(key[key.index(after: open)..<key.index(before: key.endIndex)]))] = value
        }
        self.values = values
    }

    /// `a="1",b="x\"y"`: the test's label values hold no commas or quotes but escaped ones are read too.
    private static func labels(_ text: Substring) -> [String: String] {
        var labels: [String: String] = [:]
        var rest = text
        while let equals = rest.firstIndex(of: "=") {
            let name = String(rest[..<equals])
            var index = rest.index(equals, offsetBy: 2)
            var value = ""
            while index < rest.endIndex, rest[index] != "\"" {
                if rest[index] == "\\" { index = rest.index(after: index) }
                value.append(rest[index])
                index = rest.index(after: index)
            }
            labels[name] = value
            rest = rest[min(rest.endIndex, rest.index(index, offsetBy: 1, limitedBy: rest.endIndex) ?? rest.endIndex)...]
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return labels
    }

    /// The sum of every series of `name` whose labels include `matching`.
    func sum(_ name: String, _ matching: [String: String] = [:]) -> Double {
        values.filter { series, _ in
            series.name == name && matching.allSatisfy { series.labels[$0.key] == $0.value }
        }.reduce(0) { $0 + $1.value }
    }

    func has(_ name: String) -> Bool { values.keys.contains { $0.name == name } }

    /// Every label set of `name`.
    func series(_ name: String) -> Set<[String: String]> {
        Set(values.keys.filter { $0.name == name }.map(\.labels))
    }
}
