import Foundation
import ParseWire
import Runtime
import Testing
@testable import AuthCore

@Suite struct PageTemplateTests {
    @Test func variablesAreEscapedUnlessTripled() {
        let values = ["appName": "Cats & Co", "url": "https://x.test/a?b=1", "html": "<b>"]
        #expect(PageTemplate.render("<h1>{{appName}}</h1>", values) == "<h1>Cats &amp; Co</h1>")
        #expect(PageTemplate.render("{{ url }}", values) == "https:&#x2F;&#x2F;x.test&#x2F;a?b&#x3D;1")
        #expect(PageTemplate.render("{{{html}}}{{& html}}{{html}}", values) == "<b><b>&lt;b&gt;")
        #expect(PageTemplate.render("a {{missing}} b {{unclosed", values) == "a  b {{unclosed")
    }
}

@Suite struct PagesOptionsTests {
    @Test func theJSONAndTheSingleVariablesAreRead() throws {
        let options = try PagesOptions.fromEnvironment(Environment([
            "PARSE_SERVER_PAGES": #"{"enableRouter":true,"placeholders":{"brand":"Paws"},"customUrls":{"passwordReset":"https://x.test/reset"}}"#,
            "PARSE_SERVER_PAGES_FORCE_REDIRECT": "true",
        ]))
        #expect(options.enableRouter && options.forceRedirect && !options.enableLocalization)
        #expect(options.placeholderTexts == ["brand": "Paws"])
        #expect(options.customUrls == ["passwordReset": "https://x.test/reset"])
    }

    @Test func whatCannotBeServedStopsTheStart() {
        for bad in [#"{"customRoutes":[]}"#, #"{"pagesEndpoint":"pages"}"#, #"{"pagesPath":"/nonexistent/pages"}"#,
                    #"{"enableRouter":"yes"}"#, #"{"localizationJsonPath":"/nonexistent.json"}"#, #"{"unknown":1}"#] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try PagesOptions.fromEnvironment(Environment(["PARSE_SERVER_PAGES": bad]))
            }
        }
    }

    @Test func translationsFallBackFromLocaleToLanguageToTheFallbackLocale() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID()).json")
        try Data(#"{"en":{"translation":{"hello":"Hello {{username}}"}},"de":{"translation":{"hello":"Hallo {{username}}"}}}"#.utf8)
            .write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let options = try PagesOptions(["enableLocalization": .bool(true), "localizationJsonPath": .string(file.path)])
        #expect(options.translation("de-CH", params: ["username": "ann"]) == ["hello": "Hallo ann"])
        #expect(options.translation("fr", params: ["username": "ann"]) == ["hello": "Hello ann"])
        #expect(options.translation(nil, params: [:]) == ["hello": "Hello "])
    }

    @Test func aLocaleCannotNameAnotherFolder() {
        for good in ["en", "de-CH", "zh-Hant-TW"] { #expect(PagesLocale.isValid(good), "\(good)") }
        for bad in ["", "..", "../etc", "de/..", "e", "de-", "de_CH", "dé"] { #expect(!PagesLocale.isValid(bad), "\(bad)") }
    }
}

@Suite struct PagesRouterAnswerTests {
    @Test func aRedirectCarriesTheParametersInTheQueryAndTheHeaders() {
        let answer = PagesRouter.redirect("https://x.test/apps/de/password_reset.html",
                                          params: ["username": "ann lee", "appName": "Küche"])
        #expect(answer.status == 303)
        #expect(answer.headers["Location"] == "https://x.test/apps/de/password_reset.html?appName=K%C3%BCche&username=ann%20lee")
        #expect(answer.headers["x-parse-page-param-username"] == "ann lee")
        #expect(answer.headers["x-parse-page-param-appname"] == "K%C3%BCche")
    }

    @Test func filesOutsideThePagesFolderAreNotRead() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data("page".utf8).write(to: root.appendingPathComponent("a.html"))
        #expect(PagesRouter.read("a.html", in: root.path) == "page")
        #expect(PagesRouter.read("../\(root.lastPathComponent)/a.html", in: root.path) == "page")
        #expect(PagesRouter.read("../../etc/passwd", in: root.path) == nil)
        #expect(PagesRouter.read("/etc/passwd", in: root.path) == nil)
    }
}
