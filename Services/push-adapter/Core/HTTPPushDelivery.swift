import Contracts
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParseWire

/// Delivers one device's notification by POSTing it as JSON to the endpoint of its device type:
/// `{"pushStatusId","deviceType","deviceToken","installationId","data"}`, `data` carrying the device's own badge
/// and the alert of its locale (`PushLocalization`).
/// A 2xx answer counts as transmitted. An APNs or FCM adapter replaces exactly this step (see docs/push.md).
struct HTTPPushDelivery: Sendable {
    let endpoints: PushEndpoints
    let session: URLSession

    init(endpoints: PushEndpoints, timeout: Duration) {
        self.endpoints = endpoints
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        configuration.timeoutIntervalForRequest = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        session = URLSession(configuration: configuration)
    }

    func deliver(_ device: PushRequested.Device, of push: PushRequested) async -> ReportPushResults.Outcome {
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
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONValue.object(body).compactText.utf8)
        do {
            let (_, response) = try await session.data(for: request)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard (200..<300).contains(status) else { return failed("the endpoint answered \(status)") }
            return ReportPushResults.Outcome(objectId: device.objectId, deviceType: device.deviceType, transmitted: true)
        } catch {
            return failed("\(error.localizedDescription)")
        }
    }
}
