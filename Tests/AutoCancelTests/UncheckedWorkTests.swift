import AutoCancelTestSupport
import AutoCancel
import Testing

/// A request class that is not `Sendable`, as many Objective-C request classes are.
private final class LegacyRequest {
  var cancelCount = 0
  func cancel() { cancelCount += 1 }
}

/// A `Sendable` request whose cancel method returns the request, as Alamofire's does.
private final class ChainingRequest: Sendable {
  private let cancels = Protected(0)

  @discardableResult
  func cancel() -> Self {
    cancels.withLock { $0 += 1 }
    return self
  }

  var cancelCount: Int { cancels.current }
}

private final class LegacyScreen: AutoCancelOwner {
  let cancelBag = CancelBag()

  func load(_ request: LegacyRequest) {
    cancelBag.add(unchecked: request) { $0.cancel() }
  }
}

@Suite("Work that is not Sendable, or whose cancel returns a value")
struct UncheckedWorkTests {
  @Test("joins with add(unchecked:), and is cancelled once when the owner goes")
  func uncheckedWorkIsCancelledWithItsOwner() {
    let request = LegacyRequest()
    var screen: LegacyScreen? = LegacyScreen()
    screen?.load(request)
    #expect(screen?.cancelBag.count == 1)
    screen = nil
    #expect(request.cancelCount == 1)
  }

  @Test("joined with add(unchecked:), is not cancelled once its registration is finished")
  func finishedUncheckedWorkIsNotCancelled() {
    let request = LegacyRequest()
    let bag = CancelBag()
    bag.add(unchecked: request) { $0.cancel() }.finish()
    bag.end()
    #expect(request.cancelCount == 0)
  }

  /// How work whose cancel returns a value joins a bag.
  enum Join: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case closure = "the closure form"
    case unchecked = "add(unchecked:)"
    var testDescription: String { rawValue }
  }

  @Test(
    "whose cancel returns a value joins through the closure form or add(unchecked:)",
    arguments: Join.allCases, BagEnding.allCases)
  func chainingCancelJoins(join: Join, ending: BagEnding) {
    let request = ChainingRequest()
    var bag: CancelBag? = CancelBag()
    switch join {
    case .closure: bag!.add { _ in request.cancel() }
    case .unchecked: bag!.add(unchecked: request) { $0.cancel() }
    }
    ending.apply(to: &bag)
    #expect(request.cancelCount == 1)
    _ = bag
  }
}
