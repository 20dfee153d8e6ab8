import Foundation
import Testing
@testable import GatewayCore

@Suite struct RequestCounterTests {
    @Test(arguments: [
        ("classes/Cat", "/classes/:className"), ("classes/Cat/abc", "/classes/:className/:objectId"),
        ("users/me", "/users/me"), ("users/xyz", "/users/:objectId"), ("health/ready", "/health/ready"),
        ("files/app/pic.png", "/files/:appId/:filename"), ("schemas", "/schemas"), ("batch", "/batch"),
        ("analytics/requests", "/analytics/requests"), ("classes/a/b/c/d", "/classes/other"),
        ("wp-admin/x", "/unknown"), ("", "/"),
    ])
    func routesBecomeTemplates(route: String, template: String) {
        #expect(RequestCounter.template(route) == template)
    }

    @Test func countsPerHourRouteAndStatusAndEmptiesWhenTaken() throws {
        let counter = RequestCounter()
        let hour = Date(timeIntervalSince1970: 1_764_597_600)   // 2025-12-01T14:00:00Z
        counter.record(method: "GET", route: "classes/Cat/a", status: 200, at: hour)
        counter.record(method: "GET", route: "classes/Cat/b", status: 200, at: hour.addingTimeInterval(59))
        counter.record(method: "GET", route: "classes/Cat/c", status: 404, at: hour)
        counter.record(method: "GET", route: "classes/Cat/a", status: 200, at: hour.addingTimeInterval(3_600))
        let taken = try #require(counter.take()[nil])
        #expect(taken.map(\.count) == [2, 1, 1])
        #expect(taken[0].hour == "2025-12-01T14:00:00.000Z" && taken[0].route == "GET /classes/:className/:objectId")
        #expect(taken[1].status == 404 && taken[2].hour == "2025-12-01T15:00:00.000Z")
        #expect(counter.take().isEmpty)
        counter.restore(taken)
        counter.record(method: "GET", route: "classes/Cat/z", status: 404, at: hour)
        #expect(counter.take()[nil]?.map(\.count) == [2, 2, 1])
    }

    @Test func eachAppsCountsAreTakenApart() throws {
        let counter = RequestCounter()
        let hour = Date(timeIntervalSince1970: 1_764_597_600)
        counter.record(method: "GET", route: "classes/Cat", status: 200, at: hour)
        counter.record(method: "GET", route: "classes/Cat", status: 200, app: "paws", at: hour)
        counter.record(method: "GET", route: "classes/Cat", status: 200, app: "paws", at: hour)
        let taken = counter.take()
        #expect(Set(taken.keys) == [nil, "paws"])
        #expect(taken[nil]?.map(\.count) == [1] && taken["paws"]?.map(\.count) == [2])
        counter.restore(try #require(taken["paws"]), app: "paws")
        #expect(counter.take()["paws"]?.map(\.count) == [2])
    }
}
