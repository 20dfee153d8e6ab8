/// Prometheus' text exposition format, version 0.0.4, written by hand: no Swift metrics library can be fetched
/// here, and the format is a few lines per family (`# HELP`, `# TYPE`, one line per series).
public enum PrometheusText {
    /// What a metrics endpoint answers in `Content-Type`.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// `# HELP` text: backslashes and line breaks escaped.
    public static func escapeHelp(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// A label value: backslashes, double quotes and line breaks escaped.
    public static func escapeLabelValue(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Whole numbers without a fraction (`3`, not `3.0`), infinities and NaN as Prometheus spells them.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value == .infinity { return "+Inf" }
        if value == -.infinity { return "-Inf" }
        if value == value.rounded(), abs(value) < 9_007_199_254_740_992 { return String(Int64(value)) }
        return String(value)
    }

    /// `{a="1",b="2"}`, or nothing without labels.
    public static func labelSet(_ labels: [(name: String, value: String)]) -> String {
        guard !labels.isEmpty else { return "" }
        return "{" + labels.map { "\($0.name)=\"\(escapeLabelValue($0.value))\"" }.joined(separator: ",") + "}"
    }

    public static func isValidMetricName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_" || first == ":" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" || $0 == ":" }
    }

    public static func isValidLabelName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_", !name.hasPrefix("__") else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
    }

    static func header(_ name: String, help: String, type: String, into text: inout String) {
        text += "# HELP \(name) \(escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    static func line(_ name: String, _ labels: [(name: String, value: String)], _ value: Double, into text: inout String) {
        text += name + labelSet(labels) + " " + format(value) + "\n"
    }

    /// Collected samples of one family (the first one's help and kind stand for all).
    static func write(_ samples: [Sample], into text: inout String) {
        guard let first = samples.first else { return }
        header(first.name, help: first.help, type: first.kind.rawValue, into: &text)
        for sample in samples { line(sample.name, sample.labels, sample.value, into: &text) }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
