import Foundation
import Testing

extension IntegrationSuite {
    /// `deploy/stack` keeps every listening port below Linux's ephemeral range, where a restarted server can find its
    /// port held by a client's TIME_WAIT socket: it refuses one configured inside the range, and its defaults are
    /// below it.
    @Suite struct StackPorts {
        static func run(_ command: String, _ settings: [String: String]) throws -> (status: Int32, output: String) {
            let output = FileManager.default.temporaryDirectory.appendingPathComponent("ports-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: output) }
            var environment = TestStack.environment
            for key in environment.keys where key.hasPrefix("PARSE_") || key == "PORT" { environment[key] = nil }
            environment.merge(settings) { $1 }
            let status = Spawned.wait(try Spawned.start(["/bin/bash", "-c", "'\(TestStack.script)' \(command) > '\(output)' 2>&1"],
                                                        environment: environment))
            return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
        }

        @Test func aListeningPortInsideTheEphemeralRangeIsRefused() throws {
            let range = try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
                .split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            try #require(range.count == 2)
            let inside = (range[0] + range[1]) / 2
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ports-stack-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let refused = try Self.run("up", ["PARSE_STACK_DIR": folder, "PARSE_PG_PORT": String(inside)])
            #expect(refused.status != 0)
            #expect(refused.output.contains("PARSE_PG_PORT is \(inside), inside this machine's ephemeral port range"),
                    "\(refused.output)")
            #expect(refused.output.contains("PARSE_ALLOW_EPHEMERAL_PORTS=1"))
        }

        @Test func theDefaultPortsAreBelowTheEphemeralRange() throws {
            let help = try Self.run("help", [:]).output
            let low = Int(try String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
                .split(whereSeparator: \.isWhitespace).first ?? "") ?? 32768
            for variable in ["PARSE_PG_PORT", "PARSE_AMQP_PORT", "PARSE_AMQP_MANAGEMENT_PORT", "PARSE_AMQP_DIST_PORT",
                             "PARSE_EPMD_PORT", "PORT"] {
                let line = try #require(help.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(variable + " ") })
                let port = try #require(line.split(separator: "(").last.flatMap { Int($0.dropLast()) }, "\(line)")
                // A three-node cluster adds 20 to the broker's ports.
                #expect(port + 20 < low, "\(variable) defaults to \(port)")
            }
        }
    }
}
