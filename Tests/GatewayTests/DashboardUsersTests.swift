import CCrypt
import Testing
@testable import GatewayCore

@Suite struct DashboardUsersTests {
    /// A bcrypt hash of `password` made with libcrypt, as `htpasswd -B` or parse-dashboard's docs would.
    static func bcrypt(_ password: String) throws -> String {
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        _ = try #require(crypt_gensalt_rn("$2b$", 4, nil, 0, &setting, Int32(setting.count)))
        let settingText = String(decoding: setting.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var data = crypt_data()
        let result = try #require(crypt_r(password, settingText, &data))
        return String(cString: result)
    }

    @Test func aUserLogsInWithTheRightPasswordOnly() async throws {
        let hash = try Self.bcrypt("s3cret!")
        let users = try DashboardUsers(json: #"[{"user":"ann","pass":"\#(hash)"},{"user":"bob","pass":"\#(hash)","readOnly":true}]"#)
        #expect(await users.authenticate(user: "ann", password: "s3cret!")?.user == "ann")
        #expect(await users.authenticate(user: "bob", password: "s3cret!")?.readOnly == true)
        #expect(await users.authenticate(user: "ann", password: "s3cret") == nil)
        #expect(await users.authenticate(user: "carl", password: "s3cret!") == nil)
    }

    @Test func noListMeansTheMasterKeyLogin() throws {
        #expect(try DashboardUsers(json: nil).isEmpty)
        #expect(try DashboardUsers(json: "").isEmpty)
    }
}
