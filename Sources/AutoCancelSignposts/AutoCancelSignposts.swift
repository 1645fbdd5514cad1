import AutoCancel
import Foundation

/// Instruments signposts for AutoCancel's bags: each registration is an interval from its add
/// to its end, and each bag that cancels work on its end marks an event.
///
/// Off until you turn it on, at launch, before the app makes its first bag:
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
/// A bag takes the process's switches when the first bag of the process is made, and keeps
/// them: turning signposts on later has no effect (a debug build says so once). Bags made
/// while signposts are off carry nothing of them.
public enum AutoCancelSignposts {
  /// Turns signposts on for every bag made from now on. Call it once, at launch, before the
  /// first bag is made; later calls, and calls after a bag was made, do nothing. Any thread.
  ///
  /// Signposts need the `os` framework (Apple platforms); elsewhere this does nothing.
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
  public static func enable() {
    guard !isEnabled, let sink = SignpostSinks.system else { return }
    ProcessSwitches.install(SignpostRecorder(sink: sink))
  }

  /// Turns signposts on, as ``enable()`` does, only when the environment variable
  /// `AUTOCANCEL_SIGNPOSTS` is `1`: set it in the scheme you profile with, and leave the call
  /// in the app.
  ///
  /// ```swift
  /// AutoCancelSignposts.enableIfRequested()  // on when AUTOCANCEL_SIGNPOSTS=1
  /// ```
  public static func enableIfRequested() {
    guard ProcessInfo.processInfo.environment["AUTOCANCEL_SIGNPOSTS"] == "1" else { return }
    enable()
  }

  /// Whether signposts are on: ``enable()`` came before the first bag, on a platform with
  /// signposts. Any thread.
  ///
  /// ```swift
  /// AutoCancelSignposts.enable()
  /// print(AutoCancelSignposts.isEnabled)  // true on Apple platforms
  /// ```
  public static var isEnabled: Bool {
    ProcessSwitches.installedInstrument is SignpostRecorder
  }
}
