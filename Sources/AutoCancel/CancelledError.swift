/// The error that AutoCancel reports when it cancelled work, with the reason why.
///
/// Callback and async APIs built on AutoCancel (for example the URLSession helpers of
/// `AutoCancelNetworking`) report this error when a bag cancelled the work, so that callers
/// can tell "the screen went away" from "the network failed".
///
/// ```swift
/// do {
///   let (data, _) = try await session.data(for: request, in: cancelBag)
/// } catch let error as CancelledError where error.reason == .replaced {
///   // a newer request took over; nothing to show
/// }
/// ```
public struct CancelledError: Error, Sendable, Hashable, CustomStringConvertible {
  /// Why the work was cancelled.
  public let reason: CancellationReason

  /// Makes an error for work cancelled for `reason`.
  public init(reason: CancellationReason) {
    self.reason = reason
  }

  /// `cancelled (reason)`, such as `cancelled (owner gone)`.
  public var description: String { "cancelled (\(reason))" }
}
