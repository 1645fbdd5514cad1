import AutoCancel
import AutoCancelTestSupport
import Testing

@Suite("The search owners of the SwiftUI and UIKit articles", timeLimit(minutes: 1))
@MainActor
struct SearchOwnerSamplesTests {
  /// A sample that owns a search: the SwiftUI article's models, the UIKit article's view
  /// controller.
  enum Sample: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case searchViewModel = "SearchViewModel"
    case searchModel = "SearchModel"
    case searchViewController = "SearchViewController"

    var testDescription: String { rawValue }

    /// The samples this system has: `SearchModel` needs iOS 17, macOS 14, tvOS 17, watchOS 10.
    static var available: [Sample] {
      #if canImport(Observation)
        if #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) { return allCases }
      #endif
      return allCases.filter { $0 != .searchModel }
    }

    /// A new owner, and the call its article makes when the owner's page is left (none for
    /// `SearchModel`, whose view ends the model's work itself); `nil` where this system lacks
    /// the owner.
    @MainActor
    func make() -> (owner: any SearchOwner, leavePage: (() -> Void)?)? {
      switch self {
      case .searchViewModel:
        let model = SearchViewModel()
        return (model, { model.pageDidDisappear() })
      case .searchViewController:
        let controller = SearchViewController()
        return (controller, { controller.viewDidDisappear(false) })
      case .searchModel:
        #if canImport(Observation)
          if #available(iOS 17, macOS 14, tvOS 17, watchOS 10, *) { return (SearchModel(), nil) }
        #endif
        return nil
      }
    }
  }

  @Test(
    "cancels its search when its page disappears, and stays usable",
    arguments: [Sample.searchViewModel, .searchViewController])
  func leavingThePageCancels(sample: Sample) async throws {
    let (owner, leavePage) = try #require(sample.make())
    let leave = try #require(leavePage)
    let text = "\(sample.rawValue) left"
    await api.expectCancellation(of: text) {
      owner.search(text)
    } cancelledBy: {
      leave()
    }
    #expect(!owner.cancelBag.hasEnded)
  }

  @Test("has its search cancelled when it goes away", arguments: Sample.available)
  func releaseCancels(sample: Sample) async throws {
    var owner = try #require(sample.make()).owner as (any SearchOwner)?
    let text = "\(sample.rawValue) released"
    await api.expectCancellation(of: text) {
      owner!.search(text)
    } cancelledBy: {
      owner = nil  // the search's task holds its owner weakly: nothing else keeps it
    }
  }
}
