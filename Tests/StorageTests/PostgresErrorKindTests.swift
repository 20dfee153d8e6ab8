import Runtime
import Testing
@testable import Storage

@Suite struct PostgresErrorKindTests {
    @Test(arguments: ["08006", "08001", "57P01", "57P02", "57P03", "53300", "53200", "58030", "40001", "40P01"])
    func failuresOfTheMomentAreTransient(state: String) {
        #expect(PostgresError(sqlState: state, message: "x").failureKind == .transient)
    }

    @Test(arguments: ["22003", "22P02", "23505", "23502", "42703", "42P01", "42P18", "25P02", "57014", "0A000"])
    func failuresOfTheStatementAreDeterministic(state: String) {
        #expect(PostgresError(sqlState: state, message: "x").failureKind == .deterministic)
    }

    @Test func aLostConnectionIsTransientAndALostCommitAmbiguous() {
        let lost = PostgresError.connectionFailure("server closed the connection unexpectedly")
        #expect(lost.failureKind == .transient)
        #expect(CommitOutcomeUnknown(cause: lost).failureKind == .ambiguous)
        #expect(FailureKind.of(CommitOutcomeUnknown(cause: lost)) == .ambiguous)
    }
}
