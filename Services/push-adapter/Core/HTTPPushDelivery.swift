import Contracts
import Foundation
import HTTPClient
import ParseWire

/// Delivers one device's notification by POSTing it as JSON to the endpoint of its device type (among its app's):
/// `{"pushStatusId","deviceType","deviceToken","installationId","data"}`, `data` carrying the device's own badge
/// and the alert of its locale (`PushLocalization`).
/// A 2xx answer counts as transmitted. An APNs or FCM adapter replaces exactly this step (see docs/push.md).
struct HTTPPushDelivery: Sendable {
    let timeout: Duration
    private let http = HTTPClient(label: "push-delivery")

    init(timeout: Duration) {
        self.timeout = timeout
    }

    func deliver(_ device: PushRequested.Device, of push: PushRequested, to endpoints: PushEndpoints) async -> ReportPushResults.Outcome {
        func failed(_ reason: String) -> ReportPushResults.Outcome {
            ReportPushResults.Outcome(objectId: device.objectId, deviceType: device.deviceType, transmitted: false, error: reason)
        }
        guard let url = endpoints.url(for: device.deviceType) else { return failed("no endpoint for \(device.deviceType)") }
        var data = PushLocalization.data(push.data.objectValue ?? [:], localeIdentifier: device.localeIdentifier)
        if data["badge"] != nil, let badge = device.badge { data["badge"] = .number(badge) }
        var body: [String: JSONValue] = [
            "pushStatusId": .string(push.pushStatusId), "deviceType": .string(device.deviceType),
            "deviceToken": .string(device.deviceToken), "data": .object(data),
        ]
        if let installationId = device.installationId { body["installationId"] = .string(installationId) }
        do {
            let response = try await http.send(.init("POST", url.absoluteString, headers: ["Content-Type: application/json"],
                                                      body: JSONText.bytes(.object(body)), timeout: timeout))
            guard (200..<300).contains(response.status) else { return failed("the endpoint answered \(response.status)") }
            return ReportPushResults.Outcome(objectId: device.objectId, deviceType: device.deviceType, transmitted: true)
        } catch {
            return failed("\(error)")
        }
    }
}
