import Dispatch

/// A snapshot of a ``LoopbackHTTPServer``'s connection counters.
///
/// Values are consistent with each other (taken under one lock). A connection counts as open
/// from the moment it is accepted until its socket is closed, so `open == 0` means every
/// accepted socket's descriptor was closed.
///
/// ```swift
/// let idle = await server.waitForConnections { $0.open == 0 }
/// print(idle?.accepted ?? 0, "connections served")
/// ```
public struct ConnectionStats: Sendable, Equatable {
  /// Connections accepted and not yet closed.
  public var open: Int
  /// Connections accepted since the server started.
  public var accepted: Int
  /// When the most recent connection was closed (by either side), or `nil` if none closed yet.
  public var lastClosedAt: DispatchTime?

  /// Creates a snapshot; the server builds these, tests may build expected values.
  public init(open: Int = 0, accepted: Int = 0, lastClosedAt: DispatchTime? = nil) {
    self.open = open
    self.accepted = accepted
    self.lastClosedAt = lastClosedAt
  }
}
