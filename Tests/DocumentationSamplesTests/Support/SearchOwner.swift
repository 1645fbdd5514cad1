import AutoCancel

/// What the SwiftUI and UIKit articles' search owners have in common: a search that runs in
/// their bag. Their tests check the same contract through it: the owner's search is cancelled
/// when its page is left or the owner goes.
@MainActor
protocol SearchOwner: AnyObject {
  var cancelBag: CancelBag { get }
  func search(_ text: String)
}

extension SearchViewModel: SearchOwner {}
extension SearchViewController: SearchOwner {}

#if canImport(Observation)
  @available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
  extension SearchModel: SearchOwner {}
#endif
