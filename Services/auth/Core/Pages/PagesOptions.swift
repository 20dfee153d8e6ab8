import Foundation
import ParseWire
import Runtime

/// parse-server's `pages` option (its `PagesRouter`, used when `enableRouter` is on): the verification and
/// password reset pages as templates from `pagesPath` (the built-in ones otherwise), localized by the request's
/// `locale` from `<pagesPath>/<locale>/` and the `localizationJsonPath` translations, with `placeholders`,
/// `customUrls` and `forceRedirect`. Read from `PARSE_SERVER_PAGES` (a JSON object with parse-server's member
/// names) and the single `PARSE_SERVER_PAGES_*` variables, which win.
struct PagesOptions: Sendable, Equatable {
    var enableRouter = false
    var enableLocalization = false
    var localizationFallbackLocale = "en"
    /// The `localizationJsonPath` file, loaded at start: locale -> `translation` object.
    var translations: [String: [String: JSONValue]]?
    var placeholders: [String: JSONValue] = [:]
    var forceRedirect = false
    /// nil: the built-in pages.
    var pagesPath: String?
    /// Page id (`passwordReset`, `emailVerificationSuccess`, ...) -> the URL to redirect to instead.
    var customUrls: [String: String] = [:]

    static func fromEnvironment(_ env: Environment) throws -> PagesOptions {
        var members: [String: JSONValue] = [:]
        if let text = env.optional("PARSE_SERVER_PAGES") {
            guard let object = JSONValue.parse(text)?.objectValue else {
                throw ConfigurationError("PARSE_SERVER_PAGES must be a JSON object of parse-server's pages options")
            }
            members = object
        }
        let single: [(String, String)] = [
            ("enableRouter", "ENABLE_ROUTER"), ("enableLocalization", "ENABLE_LOCALIZATION"),
            ("localizationJsonPath", "LOCALIZATION_JSON_PATH"), ("localizationFallbackLocale", "LOCALIZATION_FALLBACK_LOCALE"),
            ("placeholders", "PLACEHOLDERS"), ("forceRedirect", "FORCE_REDIRECT"), ("pagesPath", "PAGES_PATH"),
            ("pagesEndpoint", "PAGES_ENDPOINT"), ("customUrls", "CUSTOM_URLS"),
        ]
        for (member, suffix) in single {
            guard let text = env.optional("PARSE_SERVER_PAGES_" + suffix) else { continue }
            members[member] = ["placeholders", "customUrls"].contains(member) ? (JSONValue.parse(text) ?? .string(text))
                : ["true", "false"].contains(text) ? .bool(text == "true") : .string(text)
        }
        return try PagesOptions(members)
    }

    init() {}

    init(_ members: [String: JSONValue]) throws {
        func flag(_ name: String) throws -> Bool {
            guard let value = members[name] else { return false }
            guard let bool = value.boolValue else { throw ConfigurationError("pages.\(name) must be true or false") }
            return bool
        }
        for name in members.keys where !Self.known.contains(name) {
            throw ConfigurationError(name == "customRoutes"
                ? "pages.customRoutes are JavaScript handlers and are not supported"
                : "pages.\(name) is not one of parse-server's pages options")
        }
        enableRouter = try flag("enableRouter")
        enableLocalization = try flag("enableLocalization")
        forceRedirect = try flag("forceRedirect")
        if let endpoint = members["pagesEndpoint"], endpoint != .string("apps") {
            throw ConfigurationError("pages.pagesEndpoint: only `apps` is served (the mail links and the gateway use it)")
        }
        if let locale = members["localizationFallbackLocale"] {
            guard let text = locale.stringValue, PagesLocale.isValid(text) else {
                throw ConfigurationError("pages.localizationFallbackLocale must be a locale like en or de-CH")
            }
            localizationFallbackLocale = text
        }
        if let value = members["placeholders"] {
            guard let object = value.objectValue else { throw ConfigurationError("pages.placeholders must be a JSON object") }
            placeholders = object
        }
        if let value = members["customUrls"] {
            guard let object = value.objectValue, object.values.allSatisfy({ $0.stringValue != nil }) else {
                throw ConfigurationError("pages.customUrls must be a JSON object of page URLs")
            }
            customUrls = object.compactMapValues(\.stringValue)
        }
        if let value = members["pagesPath"] {
            guard let path = value.stringValue, !path.isEmpty else { throw ConfigurationError("pages.pagesPath must be a folder") }
            var isFolder: ObjCBool = false
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            guard FileManager.default.fileExists(atPath: absolute, isDirectory: &isFolder), isFolder.boolValue else {
                throw ConfigurationError("pages.pagesPath: \(path) is not a folder")
            }
            pagesPath = absolute
        }
        if let value = members["localizationJsonPath"] {
            guard let path = value.stringValue, let data = FileManager.default.contents(atPath: path),
                  let object = JSONValue.parse(Array(data))?.objectValue else {
                throw ConfigurationError("pages.localizationJsonPath: failed to load JSON file")
            }
            translations = object.compactMapValues { $0["translation"]?.objectValue }
        }
    }

    private static let known: Set<String> = [
        "enableRouter", "enableLocalization", "localizationJsonPath", "localizationFallbackLocale", "placeholders",
        "forceRedirect", "pagesPath", "pagesEndpoint", "customUrls", "encodePageParamHeaders",
    ]

    /// The translation for `locale` (or its language, or the fallback locale), its placeholders filled with `params`.
    func translation(_ locale: String?, params: [String: String]) -> [String: String] {
        guard enableLocalization, let translations else { return [:] }
        let locale = locale ?? localizationFallbackLocale
        let language = String(locale.split(separator: "-").first ?? "")
        let found = translations[locale] ?? translations[language] ?? translations[localizationFallbackLocale] ?? [:]
        return found.mapValues { PageTemplate.render($0.stringValue ?? $0.compactText, params) }
    }

    /// `placeholders` as text.
    var placeholderTexts: [String: String] { placeholders.mapValues { $0.stringValue ?? $0.compactText } }
}

/// A request's locale (`de`, `de-CH`), only in a shape that cannot name another folder.
enum PagesLocale {
    static func isValid(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isLetter),
              language.allSatisfy(\.isASCII) else { return false }
        return parts.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
