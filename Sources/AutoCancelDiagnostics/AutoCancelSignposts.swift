import AutoCancel
import Foundation

/// Instruments signposts for AutoCancel's bags: each registration is an interval from its add
/// to its end, and each bag that cancels work on its end marks an event.
///
/// Off until you turn it on, at launch:
///
/// ```swift
/// @main struct FeedApp: App {
///   init() { AutoCancelSignposts.enable() }
///   var body: some Scene { WindowGroup { FeedView() } }
/// }
/// ```
///
/// Then record the app with the os_signpost instrument (subsystem `org.autocancel`, category
/// `AutoCancel`): every item of every bag made from then on is a `Work` interval whose end
/// says whether it finished, failed or was cancelled, and why; a bag whose end cancelled work
/// marks a `Bag ended` event with how many items. See <doc:ReadingSignposts>.
///
/// A bag takes the process's switches as it is made, and keeps them: turning signposts on
/// serves the bags made from then on, and bags made while signposts are off carry nothing of
/// them. Turn them on before the first bag, so that every bag is recorded.
public enum AutoCancelSignposts {
  /// Turns signposts on for every bag made from now on. Call it at launch, before the first
  /// bag is made; a second call does nothing. Any thread.
  ///
  /// Signposts need the `os` framework (Apple platforms); elsewhere this does nothing and
  /// returns 0.
  ///
  /// - Returns: How many bags were made before signposts were turned on, which go on
  ///   without them: 0 when the first call came before the first bag, as it should.
  ///
  /// ```swift
  /// func application(
  ///   _ application: UIApplication,
  ///   didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?
  /// ) -> Bool {
  ///   AutoCancelSignposts.enable()
  ///   return true
  /// }
  /// ```
  @discardableResult
  public static func enable() -> Int {
    guard let recorder = SignpostRecorder.system else { return 0 }
    return ProcessSwitches.install(recorder)
  }

  /// Turns signposts on, as ``enable()`` does, only when the environment variable
  /// `AUTOCANCEL_SIGNPOSTS` is `1`: set it in the scheme you profile with, and leave the call
  /// in the app.
  ///
  /// ```swift
  /// AutoCancelSignposts.enableIfRequested()  // on when AUTOCANCEL_SIGNPOSTS=1
  /// ```
  @discardableResult
  public static func enableIfRequested() -> Int {
    guard ProcessInfo.processInfo.environment["AUTOCANCEL_SIGNPOSTS"] == "1" else { return 0 }
    return enable()
  }

  /// Whether signposts are on: ``enable()`` was called, on a platform with signposts. Any
  /// thread.
  ///
  /// ```swift
  /// AutoCancelSignposts.enable()
  /// print(AutoCancelSignposts.isEnabled)  // true on Apple platforms
  /// ```
  public static var isEnabled: Bool {
    guard let recorder = SignpostRecorder.system else { return false }
    return ProcessSwitches.installedInstruments.contains { $0 === recorder }
  }
}
