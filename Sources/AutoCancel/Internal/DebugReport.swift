/// What a handler of the library's reports (``CancelBag/overdueWorkHandler``,
/// ``CancelBag/pilingUpHandler``) starts as: a print in debug builds, none in release builds.
func debugPrintingHandler<Report: CustomStringConvertible & Sendable>(
  of _: Report.Type
) -> (@Sendable (Report) -> Void)? {
  #if DEBUG
    return { print($0) }
  #else
    return nil
  #endif
}
