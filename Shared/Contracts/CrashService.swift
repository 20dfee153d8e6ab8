/// `fault.crash.v1`: makes the service that takes it crash, as a command that trips a bug would. Only a service
/// started with `PARSE_FAULT_INJECTION=1` takes it, for the tests of what a crash costs (a poison command is run
/// once, then dead-lettered); no reply is ever sent by the crashing process.
public struct CrashService: Codable, Sendable, Equatable {
    public static let type = "fault.crash.v1"
    public init() {}
}
