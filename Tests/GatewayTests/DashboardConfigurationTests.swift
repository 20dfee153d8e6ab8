import Foundation
import Runtime
import Testing
@testable import GatewayCore

@Suite struct DashboardConfigurationTests {
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Services/gateway/Dashboard").path

    @Test func offUnlessEnabled() throws {
        #expect(try GatewayConfiguration.fromEnvironment(Environment([:])).dashboard == nil)
        #expect(try GatewayConfiguration.fromEnvironment(Environment(["PARSE_DASHBOARD_ENABLED": "0"])).dashboard == nil)
    }

    @Test func onWithItsDefaultPath() throws {
        let config = try GatewayConfiguration.fromEnvironment(Environment([
            "PARSE_DASHBOARD_ENABLED": "1", "PARSE_DASHBOARD_ASSETS": Self.assets]))
        let dashboard = try #require(config.dashboard)
        #expect(dashboard.path == "/dashboard")
        #expect(dashboard.users.isEmpty)
        #expect(!dashboard.allowInsecureHTTP)
    }

    @Test func refusesPlainHTTPOnAnAddressOtherMachinesReach() throws {
        let base = ["PARSE_DASHBOARD_ENABLED": "1", "PARSE_DASHBOARD_ASSETS": Self.assets, "PARSE_SERVER_HOST": "0.0.0.0"]
        #expect(throws: ConfigurationError.self) { try GatewayConfiguration.fromEnvironment(Environment(base)) }
        let allowed = base.merging(["PARSE_DASHBOARD_ALLOW_INSECURE_HTTP": "1"]) { $1 }
        #expect(try GatewayConfiguration.fromEnvironment(Environment(allowed)).dashboard?.allowInsecureHTTP == true)
        let behindTLS = base.merging(["PARSE_PUBLIC_SERVER_URL": "https://api.example.com/parse"]) { $1 }
        #expect(try GatewayConfiguration.fromEnvironment(Environment(behindTLS)).dashboard != nil)
    }

    @Test func refusesAMissingFolderABadPathAndUsersWithoutBcrypt() {
        let base = ["PARSE_DASHBOARD_ENABLED": "1", "PARSE_DASHBOARD_ASSETS": Self.assets]
        for extra in [["PARSE_DASHBOARD_ASSETS": "/nonexistent"], ["PARSE_DASHBOARD_PATH": "/"],
                      ["PARSE_DASHBOARD_PATH": "/dash board"], ["PARSE_DASHBOARD_USERS": #"[{"user":"ann","pass":"plain"}]"#],
                      ["PARSE_DASHBOARD_USERS": "not json"], ["PARSE_DASHBOARD_ENABLED": "maybe"]] {
            #expect(throws: ConfigurationError.self, "\(extra)") {
                try GatewayConfiguration.fromEnvironment(Environment(base.merging(extra) { $1 }))
            }
        }
    }

    @Test func assetsAreServedFromMemoryAndNothingOutsideTheFolder() throws {
        let assets = try DashboardAssets(directory: Self.assets)
        #expect(assets[""]?.contentType == "text/html; charset=utf-8")
        #expect(assets["app.js"]?.contentType == "text/javascript; charset=utf-8")
        #expect(assets["../Package.swift"] == nil)
        #expect(assets["style.css"] != nil)
    }
}
