import AutoCancelTestSupport
import AutoCancel
import Testing

@Suite("A CancellationReason")
struct CancellationReasonTests {
  @Test(
    "describes each built-in reason in a short phrase",
    arguments: [
      (CancellationReason.ownerGone, "owner gone"),
      (.explicit, "explicit"),
      (.replaced, "replaced"),
      (.timedOut, "timed out"),
      (.parentEnded, "parent ended"),
      (.linkEnded, "link ended"),
    ])
  func builtInDescriptions(reason: CancellationReason, description: String) {
    #expect(reason.description == description)
    #expect("\(reason)" == description)
  }

  @Test("tells built-in reasons apart")
  func builtInReasonsAreDistinct() {
    let all: [CancellationReason] = [
      .ownerGone, .explicit, .replaced, .timedOut, .parentEnded, .linkEnded,
    ]
    #expect(Set(all).count == all.count)
  }

  @Test("makes custom reasons equal, and hash alike, exactly when their texts are equal")
  func customReasonsCompareByText() {
    #expect(CancellationReason.custom("signed out") == .custom("signed out"))
    #expect(
      CancellationReason.custom("signed out").hashValue
        == CancellationReason.custom("signed out").hashValue)
    #expect(CancellationReason.custom("signed out") != .custom("closed"))
    #expect(CancellationReason.custom("signed out").description == "signed out")
    // A custom reason never equals a built-in one, even with the same text.
    #expect(CancellationReason.custom("explicit") != CancellationReason.explicit)
  }

  /// How reason-aware work stands in a bag.
  enum ReasonAwareForm: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case classInstance = "a class"
    case boxedValue = "a value type, which the bag boxes"
    var testDescription: String { rawValue }

    /// Adds work of this form to `bag`, passing every cancel on to `record`.
    func add(_ record: RecordingWork, to bag: CancelBag) {
      switch self {
      case .classInstance: bag.add(record)
      case .boxedValue: bag.add(RecordingValueWork(record))
      }
    }
  }

  @Test(
    "reaches work that implements cancel(reason:), a class or a value type in its box",
    arguments: ReasonAwareForm.allCases)
  func reachesReasonAwareWork(form: ReasonAwareForm) {
    let bag = CancelBag()
    let (cancelled, ended) = (RecordingWork(), RecordingWork())
    form.add(cancelled, to: bag)
    bag.cancelAll(reason: .custom("page left"))
    form.add(ended, to: bag)
    bag.end(reason: .timedOut)
    #expect(cancelled.reasons == [.custom("page left")])
    #expect(ended.reasons == [.timedOut])
  }

  @Test("reaches closures added with add(onCancel:), which run once and only when cancelled")
  func reachesClosures() {
    let bag = CancelBag()
    let received = Protected<[CancellationReason]>([])
    bag.add(key: "k", label: "closure") { reason in received.withLock { $0.append(reason) } }
    bag.add { reason in received.withLock { $0.append(reason) } }.finish()
    bag.add(key: "k") { reason in received.withLock { $0.append(reason) } }
    #expect(received.current == [.replaced])
    bag.end(reason: .custom("signed out"))
    #expect(received.current == [.replaced, .custom("signed out")])
  }

  @Test("is nil outside a task launched by a bag")
  func currentIsNilOutsideBagTasks() async {
    #expect(CancellationReason.current == nil)
    let task = Task { () async -> CancellationReason? in
      withUnsafeCurrentTask { $0?.cancel() }
      return CancellationReason.current
    }
    #expect(await task.value == nil)
  }
}
