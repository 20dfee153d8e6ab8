/// The attempts a redelivered message carries in a header (`x-attempts`), as the count of this attempt.
public enum DeliveryAttempts {
    /// 1 for a first delivery, the header's count plus one after that. A header that is not a count, or one far
    /// past `limit` (a message from elsewhere, or tampered with), counts as `limit`: no arithmetic on it can
    /// overflow, and such a message goes on as one that has been tried enough.
    public static func current(_ headers: [String: String], key: String, limit: Int) -> Int {
        guard let text = headers[key] else { return 1 }
        guard let previous = Int(text), (0..<limit).contains(previous) else { return max(limit, 1) }
        return previous + 1
    }
}
