@testable import Storage
import Testing

struct PreparedStatementsUnitTests {
    @Test func aTextIsPreparedOnItsSecondUseAndReusedAfter() {
        var statements = PreparedStatements()
        #expect(statements.lookup("SELECT 1") == .runUnnamed)
        guard case .prepare(let name) = statements.lookup("SELECT 1") else {
            Issue.record("expected the second use to prepare")
            return
        }
        statements.prepared("SELECT 1", as: name)
        #expect(statements.lookup("SELECT 1") == .prepared(name))
        statements.forget("SELECT 1")
        #expect(statements.lookup("SELECT 1") == .runUnnamed)
    }

    @Test func theCacheStopsGrowingAtItsCapacity() {
        var statements = PreparedStatements()
        for index in 0..<PreparedStatements.capacity {
            _ = statements.lookup("SELECT \(index)")
            guard case .prepare(let name) = statements.lookup("SELECT \(index)") else {
                Issue.record("statement \(index) was not prepared")
                return
            }
            statements.prepared("SELECT \(index)", as: name)
        }
        _ = statements.lookup("SELECT -1")
        #expect(statements.lookup("SELECT -1") == .runUnnamed)
        #expect(statements.lookup("SELECT 0") != .runUnnamed)
    }
}
