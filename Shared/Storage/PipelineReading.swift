/// Where the reading of a pipeline's results stands (`LibPQSession.readPipeline`), so that a non-blocking read can
/// stop when the next result has not arrived, and go on from there once it has.
struct PipelineReading {
    let statements: [PostgresStatement]
    /// For each statement, the name it is being prepared under in this pipeline, whose result comes first.
    let preparing: [String?]
    /// The statement whose result comes next.
    var index = 0
    /// Whether that statement's PREPARE result has been read.
    var preparedRead = false
    /// Whether the end of a statement's results (libpq's NULL) comes next.
    var awaitsEnd = false
    var results: [PostgresResult] = []
    var firstError: (any Error)?
}
