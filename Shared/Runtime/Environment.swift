import Foundation

/// Typed reading of settings from environment variables, with defaults that work locally.
/// An unset or empty variable takes the default; a malformed one is a `ConfigurationError` at start-up.
public struct Environment: Sendable {
    private let values: [String: String]

    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    public func optional(_ key: String) -> String? {
        guard let value = values[key]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }

    public func string(_ key: String, default fallback: String) -> String {
        optional(key) ?? fallback
    }

    public func int(_ key: String, default fallback: Int, in range: ClosedRange<Int> = 0...Int.max) throws -> Int {
        guard let text = optional(key) else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError("\(key) must be a whole number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// `true`/`1`/`yes` or `false`/`0`/`no`, in any case.
    public func bool(_ key: String, default fallback: Bool) throws -> Bool {
        guard let text = optional(key) else { return fallback }
        switch text.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: throw ConfigurationError("\(key) must be true or false, got '\(text)'")
        }
    }

    /// Comma-separated values, blanks dropped.
    public func list(_ key: String, default fallback: [String]) -> [String] {
        guard let text = optional(key) else { return fallback }
        return text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Sizes as parse-server writes them: `20mb`, `512kb`, `1gb` or a plain number of bytes.
    public func byteSize(_ key: String, default fallback: String) throws -> Int {
        let text = (optional(key) ?? fallback).lowercased()
        let units: [(String, Int)] = [("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10), ("b", 1)]
        for (suffix, factor) in units where text.hasSuffix(suffix) {
            if let number = Double(text.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)), number >= 0,
               number * Double(factor) < Double(Int.max) {
                return Int(number * Double(factor))
            }
        }
        if let bytes = Int(text), bytes >= 0 { return bytes }
        throw ConfigurationError("\(key) must be a size such as 20mb, 512kb or 1048576, got '\(text)'")
    }
}

public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
