/// Lives as long as a body's iterator; its end stops a transfer still running (after the
/// body completed, that is a no-op).
final class ConsumerPresence: Sendable {
  let gone: @Sendable () -> Void

  init(gone: @escaping @Sendable () -> Void) { self.gone = gone }

  deinit { gone() }
}
