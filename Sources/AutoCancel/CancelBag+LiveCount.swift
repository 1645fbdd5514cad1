/// Counting the labelled bags that are alive: owners that should have gone away.
extension CancelBag {
  /// The number of bags made with `label` that have not been deinitialized.
  ///
  /// A bag lives as long as its owner stores it, so a count that keeps growing as a screen
  /// is opened and closed tells that the screen's model is leaked (a retain cycle, a task
  /// holding it): its bag, and its work, never end. A bag that has ended (``end(reason:)``)
  /// counts until it is deinitialized. Child and linked bags count under their own labels;
  /// bags without a label are not counted.
  ///
  /// Process-wide; any thread. A snapshot: bags may be made or released right after it is
  /// read. Counting costs a labelled bag one short lock when it is made and one when it is
  /// deinitialized; adding, finishing and cancelling work cost nothing.
  ///
  /// ```swift
  /// final class FeedViewModel {
  ///   let cancelBag = CancelBag(label: "FeedViewModel")
  /// }
  /// // In a debug overlay, or a test that opens and closes the screen:
  /// print(CancelBag.liveCount(label: "FeedViewModel"))  // 1 while the feed is on screen
  /// ```
  public static func liveCount(label: String) -> Int {
    LiveBags.count(of: label)
  }

  /// Every label of a bag that has not been deinitialized, with how many such bags there are.
  ///
  /// Labels whose bags were all deinitialized are absent. Read label by label: bags made or
  /// released while it is read may or may not be counted. Process-wide; any thread.
  ///
  /// ```swift
  /// for (label, count) in CancelBag.liveCountsByLabel.sorted(by: { $0.key < $1.key }) {
  ///   print("\(label): \(count)")  // "FeedViewModel: 1", "SharedRequests: 1", …
  /// }
  /// ```
  public static var liveCountsByLabel: [String: Int] {
    LiveBags.all
  }
}
