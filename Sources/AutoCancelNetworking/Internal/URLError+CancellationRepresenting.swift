import AutoCancel
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// `URLError(.cancelled)`, what completion handlers receive when a bag cancels their task,
/// answers `isCancellation`.
extension URLError: CancellationRepresenting {
  package var representsCancellation: Bool { code == .cancelled }
}
