import ParseWire

/// parse-server's localized push (`Push/utils.js`): a push's `data` may carry `alert-<locale>` and
/// `title-<locale>` beside `alert` and `title`; a device whose `localeIdentifier` starts with a locale gets that
/// locale's text in `alert` (and `title`), every device gets `data` without the `-<locale>` keys. parse-server takes
/// the first matching locale in the order the keys were sent; JSON objects have no order here, so the longest
/// match wins (`fr-CA` before `fr` for a `fr-CA` device), which is the same whenever one locale matches.
public enum PushLocalization {
    static let localizableKeys = ["alert", "title"]

    /// `data` as the device with `localeIdentifier` receives it.
    public static func data(_ data: [String: JSONValue], localeIdentifier: String?) -> [String: JSONValue] {
        let locales = Set(data.keys.compactMap { key in
            localizableKeys.first { key.hasPrefix("\($0)-") }.map { String(key.dropFirst($0.count + 1)) }
        })
        guard !locales.isEmpty else { return data }
        var localized = data.filter { key, _ in !localizableKeys.contains { key.hasPrefix("\($0)-") } }
        if let identifier = localeIdentifier,
           let locale = locales.filter({ identifier.hasPrefix($0) }).max(by: { $0.count < $1.count }) {
            for key in localizableKeys {
                // parse-server keeps the default when a locale's text is empty.
                if let text = data["\(key)-\(locale)"], text != .string(""), !text.isNull { localized[key] = text }
            }
        }
        return localized
    }
}
