/// Cancellable work that can say it is done, so that it leaves its bag by itself.
///
/// Conform your own request types when nothing calls ``CancelRegistration/finish()`` for
/// them: the one-liner (`autoCancel(request)` of an ``AutoCancelOwner``, or
/// `cancelBag.add(request)`) then drops the work soon after it reports that it finished, and a
/// bag that lives as long as the app stays as small as its work in flight. `Operation` and
/// `URLSessionTask` leave the same way (`AutoCancelNetworking`).
///
/// ```swift
/// final class ImageRequest: FinishReporting {
///   private let state = ...  // thread-safe
///   var isFinished: Bool { state.isFinished }
///   func cancel() { connection.close() }
/// }
/// autoCancel(request)  // leaves the bag by itself once `isFinished` says true
/// ```
///
/// ## Contract for implementers
///
/// - ``isFinished`` may be read from any thread, at any time, never under a lock of the
///   bag's: on adds, and from the library's reaper, a few times a second while the bag holds
///   such work. It must return promptly and must not call back into the bag.
/// - Once true, it stays true. The bag only drops work that says true, so work that is still
///   running is never dropped.
/// - Finished work may still receive one ``AutoCancellable/cancel()`` if its bag ends before
///   it noticed the finish: make `cancel()` harmless after the work finished, as
///   `Operation.cancel()` and `URLSessionTask.cancel()` are.
/// - The conformance may be declared apart from the ``AutoCancellable`` one: on a subclass
///   (`final class Upload: APIRequest, FinishReporting`), conditionally on a generic wrapper,
///   or in another module. Such work leaves by itself too. Declared together, the bag knows
///   without asking the runtime, which a bag otherwise does for each type of work new to it
///   (see <doc:Contracts>).
///
/// A generic wrapper reports its finish when the work it wraps does:
///
/// ```swift
/// struct Logged<Wrapped: AutoCancellable>: AutoCancellable {
///   let work: Wrapped
///   func cancel() { print("cancelled"); work.cancel() }
/// }
/// extension Logged: FinishReporting where Wrapped: FinishReporting {
///   var isFinished: Bool { work.isFinished }
/// }
/// cancelBag.add(Logged(work: request))  // leaves once `request` finished
/// ```
///
/// See <doc:Contracts> for when a bag asks.
public protocol FinishReporting: AutoCancellable {
  /// Whether the work is done (completed, failed or cancelled) and will do nothing more.
  var isFinished: Bool { get }
}

extension FinishReporting {
  /// Boxes the value once, and asks it from time to time whether it finished.
  public static func _add(_ work: Self, to insertion: _BagInsertion) -> CancelRegistration {
    insertion.addReportingFinish(BoxedFinishReporting(work))
  }
}

extension FinishReporting where Self: AnyObject {
  /// Stores the work as it is, and asks it from time to time whether it finished.
  @inlinable
  public static func _add(_ work: Self, to insertion: _BagInsertion) -> CancelRegistration {
    insertion.addReportingFinish(work)
  }
}
