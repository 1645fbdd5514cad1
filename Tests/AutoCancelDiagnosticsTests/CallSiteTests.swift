@testable import AutoCancel
import AutoCancelDiagnostics
import AutoCancelTestSupport
import Testing

@Suite("Where each item was added", timeLimit(minutes: 1))
struct CallSiteTests {
  /// A bag that keeps call sites, whatever the process's switches are.
  func sitedBag(label: String? = nil) -> CancelBag {
    CancelBag(label: label, switches: DiagnosticSwitches(keepsCallSites: true))
  }

  /// The call site of the line after the caller's.
  func nextLine(_ line: UInt = #line) -> CallSite {
    CallSite(fileID: #fileID, line: line + 1)
  }

  final class Screen: AutoCancelOwner {
    let cancelBag: CancelBag
    init(_ bag: CancelBag) { cancelBag = bag }
  }

  /// Adds `work`, typed as a generic parameter, and returns the line of the add.
  func addGeneric<Work: AutoCancellable>(_ work: Work, to bag: CancelBag) -> CallSite {
    let site = nextLine()
    bag.add(work)
    return site
  }

  @Test("is the caller's line for concrete, generic and existential adds")
  func concreteGenericAndExistential() {
    let bag = sitedBag()
    let concrete = nextLine()
    bag.add(RecordingWork())
    let generic = addGeneric(RecordingWork(), to: bag)
    let work: any AutoCancellable = RecordingWork()
    let existential = nextLine()
    bag.add(work)
    #expect(bag.snapshot().map(\.callSite) == [concrete, generic, existential])
  }

  @Test("is the caller's line for the other forms of add")
  func otherAdds() {
    let bag = sitedBag()
    let closure = nextLine()
    bag.add { _ in }
    let unchecked = nextLine()
    bag.add(unchecked: RecordingWork()) { $0.cancel() }
    let keyed = nextLine()
    bag.add(RecordingWork(), key: "save", policy: .ignoreNew, label: "save")
    #expect(bag.snapshot().map(\.callSite) == [closure, unchecked, keyed])
  }

  @Test("is the line of the one-liner, not the library's")
  func oneLiner() {
    let screen = Screen(sitedBag())
    let site = nextLine()
    screen.autoCancel(RecordingWork())
    #expect(screen.cancelBag.snapshot().first?.callSite == site)
  }

  @Test("is the line that launched a bag task, keyed or not")
  func bagTasks() async {
    let bag = sitedBag()
    let gate = Gate()
    let plain = nextLine()
    let first = bag.task { await gate.wait() }
    let keyed = nextLine()
    let second = bag.task(key: "sync", policy: .enqueue) { await gate.wait() }
    #expect(bag.snapshot().map(\.callSite) == [plain, keyed])
    gate.open()
    await first.value
    _ = await second?.result
  }

  @Test("shows in the item's description, its event, and nowhere when the item has no age")
  func describedAndReported() {
    let bag = sitedBag()
    let events = Protected<[String]>([])
    bag.observe { event in events.withLock { $0.append("\(event)") } }
    let site = nextLine()
    bag.add(RecordingWork(), label: "feed").finish()
    let expected = "#1 feed (RecordingWork) added at CallSiteTests.swift:\(site.line)"
    #expect(events.withLock { $0 }.first?.hasPrefix("registered \(expected), ") == true)
    let plainSite = nextLine()
    bag.add(RecordingWork())
    let plain = bag.snapshot()[0]
    #expect(plain.age == nil)
    #expect(
      plain.description == "#2 (RecordingWork) added at CallSiteTests.swift:\(plainSite.line)")
  }

  @Test("is nil, with no side table, on a bag that keeps none")
  func offKeepsNothing() {
    let bag = CancelBag(label: nil, switches: DiagnosticSwitches())
    bag.add(RecordingWork())
    Screen(bag).autoCancel(RecordingWork())
    _ = bag.task {}
    #expect(bag.snapshot().allSatisfy { $0.callSite == nil })
    #expect(bag.core.withLock { $0.extras == nil })
  }

  @Test("leaves the side table with its item")
  func leavesWithTheItem() {
    let bag = sitedBag()
    bag.add(RecordingWork()).finish()
    bag.add(RecordingWork()).cancel()
    #expect(bag.core.withLock { $0.details.isEmpty })
  }

  @Test("names its file without the module, and its line")
  func describesItself() {
    let site = CallSite(fileID: "FeedApp/FeedModel.swift", line: 42)
    #expect(site.fileName == "FeedModel.swift")
    #expect(site.description == "FeedModel.swift:42")
  }
}
