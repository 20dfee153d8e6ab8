import Contracts
import Testing
@testable import GatewayCore

@Suite struct ServiceRouteTests {
    @Test(arguments: ["classes", "classes/Cat", "classes/Cat/QtjcqDbaAi", "classes/_Installation", "batch",
                      "schemas", "schemas/Cat", "purge/Cat", "aggregate/Cat", "serverInfo", "config",
                      "installations", "installations/abc", "events/AppOpened", "push",
                      "push_audiences", "push_audiences/abc"])
    func dataRoutesGoToPosts(path: String) {
        #expect(ServiceRoute.owner(of: path) == .posts)
    }

    @Test(arguments: ["classes/_User", "classes/_User/abc", "classes/_Session", "classes/_Role/r1", "users",
                      "users/me", "users/abc", "login", "logout", "sessions", "sessions/me", "roles", "roles/r1",
                      "requestPasswordReset", "verifyPassword", "upgradeToRevocableSession",
                      "verificationEmailRequest", "loginAs", "aggregate/_User"])
    func accountRoutesGoToAuth(path: String) {
        #expect(ServiceRoute.owner(of: path) == .auth)
    }

    @Test(arguments: ["files", "files/pic.jpg", "files/app/pic.jpg"])
    func fileRoutesGoToFiles(path: String) {
        #expect(ServiceRoute.owner(of: path) == .files)
    }

    @Test(arguments: ["functions/hello", "jobs", "jobs/cleanup", "hooks/functions", "hooks/triggers/Cat/beforeSave",
                      "cloud_code/jobs", "cloud_code/jobs/data", "classes/_JobStatus", "classes/_JobStatus/j1"])
    func cloudCodeRoutesGoToCloud(path: String) {
        #expect(ServiceRoute.owner(of: path) == .cloud)
    }

    @Test(arguments: ["", "health", "Classes/Cat", "USERS", "/classes/Cat",
                      "classesCat"])
    func unknownRoutesHaveNoOwner(path: String) {
        #expect(ServiceRoute.owner(of: path) == nil)
    }
}
