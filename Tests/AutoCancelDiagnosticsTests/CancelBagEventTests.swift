import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
import Testing

@Suite("A bag event")
struct CancelBagEventTests {
  struct Failure: Error, CustomStringConvertible {
    var code: Int
    var description: String { "failure \(code)" }
  }

  struct OtherFailure: Error, CustomStringConvertible {
    var code: Int
    var description: String { "failure \(code)" }
  }

  @Test("kinds with errors are equal, with equal hashes, when type and text are equal")
  func failedKindsCompareByTypeAndText() {
    let kind = CancelBagEvent.Kind.failed(Failure(code: 1))
    #expect(kind == .failed(Failure(code: 1)))
    #expect(kind.hashValue == CancelBagEvent.Kind.failed(Failure(code: 1)).hashValue)
    #expect(kind != .failed(Failure(code: 2)))
    #expect(kind != .failed(OtherFailure(code: 1)))
    #expect(kind != .finished)
    #expect(Set([kind, .failed(Failure(code: 1)), .finished, .cancelled(.explicit)]).count == 3)
  }

  @Test("describes a failure with its item and error")
  func failureDescription() async {
    let bag = CancelBag()
    let descriptions = Protected<[String]>([])
    bag.observe { event in descriptions.withLock { $0.append(event.description) } }
    _ = await bag.task(label: "sync") { () async throws -> Void in throw Failure(code: 3) }
      .result
    let failed = descriptions.current.last ?? ""
    #expect(failed.hasPrefix("failed #1 sync (Task<(), Error>)"), "\(failed)")
    #expect(failed.hasSuffix(": failure 3"), "\(failed)")
  }
}
