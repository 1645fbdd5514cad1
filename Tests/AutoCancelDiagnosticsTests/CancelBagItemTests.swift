import AutoCancelTestSupport
import AutoCancel
import AutoCancelDiagnostics
import Dispatch
import Testing

@Suite("A CancelBag's snapshot and debugDescription", timeLimit(minutes: 1))
struct CancelBagItemTests {
  @Test("lists the work in flight oldest first, with increasing ids, even after slot reuse")
  func oldestFirst() {
    let bag = CancelBag()
    let first = bag.add(RecordingWork(), label: "first")
    bag.add(RecordingWork(), label: "second")
    first.finish()
    bag.add(RecordingWork(), label: "third")  // lands in the first one's slot
    let items = bag.snapshot()
    #expect(items.map(\.label) == ["second", "third"])
    #expect(items[0].id < items[1].id)
  }

  @Test("names the type of each kind of work")
  func workTypeNames() async {
    let bag = CancelBag()
    let gate = Gate()
    bag.add(RecordingWork())
    // Held until the snapshot: a finished task leaves its bag by itself.
    let boxed = Task<Int, Never> {
      await gate.wait()
      return 1
    }
    bag.add(boxed)
    bag.add { _ in }
    bag.add(DispatchWorkItem {})
    bag.add(RecordingValueWork(RecordingWork()))
    let launched = bag.task { () async -> Int in
      await gate.wait()
      return 1
    }
    #expect(
      bag.snapshot().map(\.workType) == [
        "RecordingWork", "Task<Int, Never>", "closure", "DispatchWorkItem", "RecordingValueWork",
        "Task<Int, Never>",
      ])
    gate.open()
    _ = await launched.value
    _ = await boxed.value
  }

  @Test("shows labels and keys, and ages only for work added with a label or a key")
  func labelsKeysAndAges() {
    let bag = CancelBag(label: nil, switches: DiagnosticSwitches(keepsCallSites: true))
    bag.add(RecordingWork())
    bag.add(RecordingWork(), label: "labelled")
    bag.add(RecordingWork(), key: "search")
    bag.add(RecordingWork(), key: 7, label: "both")
    let items = bag.snapshot()
    #expect(items.map(\.label) == [nil, "labelled", nil, "both"])
    #expect(items[0].key == nil)
    #expect(items[1].key == nil)
    #expect(items[2].key as? String == "search")
    #expect(items[3].key as? Int == 7)
    #expect(items.map { $0.age != nil } == [false, true, true, true])
    #expect(items.compactMap(\.age).allSatisfy { $0 >= 0 })
  }

  @Test("describes an item as #id label (type) key, age")
  func itemDescription() throws {
    let bag = CancelBag(label: nil, switches: DiagnosticSwitches())
    bag.add(RecordingWork())
    bag.add(RecordingWork(), key: "search", label: "feed")
    let items = bag.snapshot()
    #expect(items[0].description == "#\(items[0].id) (RecordingWork)")
    let keyed = items[1].description
    #expect(keyed.hasPrefix("#\(items[1].id) feed (RecordingWork) key search, "))
    #expect(keyed.hasSuffix(" s"))
  }

  @Test("describes the bag: its label, whether it ended, and each item in flight")
  func debugDescription() {
    let bag = CancelBag(label: "Feed", switches: DiagnosticSwitches())
    #expect(bag.label == "Feed")
    bag.add(RecordingWork(), label: "avatar")
    bag.add(RecordingWork())
    let lines = bag.debugDescription.split(separator: "\n").map(String.init)
    #expect(lines.first == "CancelBag(Feed): 2 in flight")
    #expect(lines.count == 3)
    #expect(lines[1].contains("avatar (RecordingWork)"))
    #expect(lines[2].hasSuffix("(RecordingWork)"))

    bag.end(reason: .custom("closed"))
    #expect(bag.debugDescription == "CancelBag(Feed) ended (closed): 0 in flight")
    #expect(CancelBag().debugDescription == "CancelBag: 0 in flight")
  }
}
