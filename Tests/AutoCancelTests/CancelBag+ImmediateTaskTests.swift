#if compiler(>=6.2)
  import AutoCancel
  import AutoCancelTestSupport
  import Testing

  /// State only the main actor may touch.
  @MainActor
  private final class Screen {
    var phase = "idle"
  }

  @Suite("An immediate bag task", timeLimit(minutes: 1))
  struct CancelBagImmediateTaskTests {
    @Test("runs its operation on the calling thread, before it returns, up to its first suspension")
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    func runsBeforeItReturns() async throws {
      let bag = CancelBag()
      let events = Protected<[String]>([])
      let gate = Gate()
      let task = bag.immediateTask {
        events.withLock { $0.append("started") }
        await gate.wait()
        events.withLock { $0.append("resumed") }
      }
      events.withLock { $0.append("returned") }
      #expect(events.current == ["started", "returned"])
      #expect(bag.count == 1)
      gate.open()
      await task.value
      #expect(events.current == ["started", "returned", "resumed"])
      #expect(bag.count == 0)
    }

    @Test("runs on the caller's actor before it returns")
    @MainActor
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    func runsOnTheCallersActor() async throws {
      let screen = Screen()
      let bag = CancelBag()
      // No `await` before touching `screen`: this compiles only if the operation is main-actor
      // isolated, and it ran before `immediateTask` returned.
      let task = bag.immediateTask { () throws -> Int in
        MainActor.assertIsolated()
        screen.phase = "loading"
        return 1
      }
      #expect(screen.phase == "loading")
      #expect(try await task.value == 1)
    }

    @Test("is registered before it starts, and has left its bag and key if it returned at once")
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    func registeredBeforeItStartsAndGoneWhenItReturned() async {
      let bag = CancelBag()
      let countInside = Protected<Int?>(nil)
      let task = bag.immediateTask(key: "k") { countInside.withLock { $0 = bag.count } }
      #expect(countInside.current == 1)
      #expect(bag.count == 0)
      #expect(!bag.isRunning(key: "k"))
      await task.value
    }

    @Test("with a policy: refused (nil) while the key runs; a waiting launch runs once let through")
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    func withAPolicy() async throws {
      let bag = CancelBag()
      let log = OperationLog()
      let first = bag.immediateTask(key: "k", policy: .ignoreNew, operation: log.operation("first"))
      #expect(log.hasStarted("first"))
      #expect(bag.immediateTask(key: "k", policy: .ignoreNew) { 0 } == nil)
      let waiting = bag.immediateTask(key: "k", policy: .enqueue, operation: log.operation("next"))
      #expect(!log.hasStarted("next"))
      log.release("first")
      await log.waitUntilStarted("next")
      log.release("next")
      _ = try await first?.value
      _ = try await waiting?.value
      #expect(log.startOrder == ["first", "next"])
    }

    @Test("on an ended bag, starts already cancelled, or never runs with a policy")
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    func onAnEndedBag() async {
      let bag = CancelBag()
      bag.end(reason: .custom("closed"))
      let plain = bag.immediateTask { (Task.isCancelled, CancellationReason.current) }
      let (cancelled, reason) = await plain.value
      #expect(cancelled)
      #expect(reason == .custom("closed"))
      let ran = Protected(false)
      let withPolicy = bag.immediateTask(key: "k", policy: .replace) { ran.withLock { $0 = true } }
      await #expect(throws: CancellationError.self) { try await withPolicy?.value }
      #expect(!ran.current)
    }
  }
#endif
