import Testing

/// The suites that set the process-wide report handlers (`CancelBag.overdueWorkHandler`,
/// `CancelBag.pilingUpHandler`), nested here so that they run one test at a time: a handler set
/// by one would take the reports that another waits for.
@Suite("Suites that set the report handlers", .serialized)
enum ReportHandlerSuites {}
