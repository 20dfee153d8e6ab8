@testable import AuthCore
import Runtime
import Testing

struct CustomPagesTests {
    @Test func aNamedPageReplacesTheBuiltInOneAndKeepsTheQuery() throws {
        let pages = try CustomPages.fromEnvironment(Environment([
            "PARSE_SERVER_CUSTOM_PAGES": #"{"choosePassword":"https://app.example/reset?v=2","parseFrameURL":"https://x"}"#,
        ]))
        #expect(pages.url(.choosePassword, publicServerURL: "https://api.example/parse", query: "token=t")
                == "https://app.example/reset?v=2&token=t")
        #expect(pages.url(.invalidLink, publicServerURL: "https://api.example/parse")
                == "https://api.example/parse/apps/invalid_link.html")
    }

    @Test(arguments: [#"[]"#, #"{"nope":"https://x"}"#, #"{"invalidLink":"javascript:alert(1)"}"#])
    func badSettingsStopTheStart(_ text: String) {
        #expect(throws: ConfigurationError.self) {
            try CustomPages.fromEnvironment(Environment(["PARSE_SERVER_CUSTOM_PAGES": text]))
        }
    }
}
