import Testing

@testable import AutoCancel

@Suite("A slot table")
struct SlotTableTests {
  private final class Work: AutoCancellable {
    func cancel() {}
  }

  @Test("names each occupant by index and sequence, and forgets it once removed")
  func namesOccupants() {
    var table = SlotTable()
    let work = Work()
    let index = table.insert(work, sequence: 1, flags: [])
    #expect(table.contains(index: index, sequence: 1))
    #expect(!table.contains(index: index, sequence: 2))
    #expect(table.work(at: index) === work)
    let removed = table.remove(at: index)
    #expect(removed.work === work)
    #expect(!table.contains(index: index, sequence: 1))
    #expect(table.count == 0)
  }

  @Test("reuses a freed slot, and the old sequence never matches the new occupant")
  func reusesFreedSlots() {
    var table = SlotTable()
    let first = table.insert(Work(), sequence: 1, flags: [])
    _ = table.insert(Work(), sequence: 2, flags: [])
    _ = table.remove(at: first)
    let third = table.insert(Work(), sequence: 3, flags: [])
    #expect(third == first)
    #expect(table.capacity == 2)
    #expect(!table.contains(index: third, sequence: 1))
    #expect(table.contains(index: third, sequence: 3))
  }

  @Test("reuses freed slots last freed first, whatever the order of removal")
  func freeListOrder() {
    var table = SlotTable()
    let indices = (1...4).map { table.insert(Work(), sequence: UInt64($0), flags: []) }
    _ = table.remove(at: indices[1])
    _ = table.remove(at: indices[3])
    let fifth = table.insert(Work(), sequence: 5, flags: [])
    let sixth = table.insert(Work(), sequence: 6, flags: [])
    let seventh = table.insert(Work(), sequence: 7, flags: [])
    #expect(fifth == indices[3])
    #expect(sixth == indices[1])
    #expect(seventh == 4)
  }

  @Test("keeps flags beside the sequence, and adds to them")
  func keepsFlags() {
    var table = SlotTable()
    let index = table.insert(Work(), sequence: 9, flags: .keyed)
    table.insertFlags(.detailed, at: index)
    #expect(table.flags(at: index) == [.keyed, .detailed])
    #expect(table.contains(index: index, sequence: 9))
    let removed = table.remove(at: index)
    #expect(removed.flags == [.keyed, .detailed])
  }

  @Test("gives a large table back once drained, and keeps a small one")
  func shrinksWhenDrained() {
    var table = SlotTable()
    let small = (1...8).map { table.insert(Work(), sequence: UInt64($0), flags: []) }
    for index in small { _ = table.remove(at: index) }
    let shrankSmall = table.shrinkIfDrained()
    #expect(!shrankSmall)
    #expect(table.capacity == 8)
    let large = (1...100).map { table.insert(Work(), sequence: UInt64(100 + $0), flags: []) }
    let shrankOccupied = table.shrinkIfDrained()
    #expect(!shrankOccupied)
    for index in large { _ = table.remove(at: index) }
    let shrankDrained = table.shrinkIfDrained()
    #expect(shrankDrained)
    #expect(table.capacity == 0)
  }

  @Test("hands every slot over at once and is empty after")
  func removesAll() {
    var table = SlotTable()
    for sequence in 1...5 { _ = table.insert(Work(), sequence: UInt64(sequence), flags: []) }
    let slots = table.removeAll()
    #expect(slots.count == 5)
    #expect(slots.first.isOccupied && slots.rest.allSatisfy { $0.isOccupied })
    #expect(table.count == 0 && table.capacity == 0)
  }

  @Test("keeps its first slot inline: one occupant at a time never allocates the array")
  func firstSlotInline() {
    var table = SlotTable()
    for sequence in 1...100 {
      let index = table.insert(Work(), sequence: UInt64(sequence), flags: [])
      #expect(index == 0)
      _ = table.remove(at: index)
    }
    #expect(table.capacity == 1)
    #expect(table.rest.capacity == 0)
    let first = table.insert(Work(), sequence: 101, flags: [])
    let second = table.insert(Work(), sequence: 102, flags: [.keyed])
    #expect((first, second) == (0, 1))
    #expect(table.rest.capacity >= SlotTable.initialCapacity)
    #expect(
      table.contains(index: first, sequence: 101) && !table.contains(index: first, sequence: 102))
    #expect(table.contains(index: second, sequence: 102) && table.flags(at: second) == .keyed)
    var seen: [UInt64] = []
    table.forEachOccupied { _, slot in seen.append(slot.sequence) }
    #expect(seen == [101, 102])
  }
}
