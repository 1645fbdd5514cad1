import AutoCancel
import AutoCancelNetworking
import AutoCancelTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Answers every request for the `autocancel-echo` scheme with "echo <path>", as an app's
/// stub or offline protocol would.
final class EchoProtocol: URLProtocol {
  static let scheme = "autocancel-echo"

  override class func canInit(with request: URLRequest) -> Bool {
    request.url?.scheme == scheme
  }

  override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

  override func startLoading() {
    guard let url = request.url, let client else { return }
    let response = HTTPURLResponse(
      url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: nil)!
    client.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
    client.urlProtocol(self, didLoad: Data("echo \(url.path)".utf8))
    client.urlProtocolDidFinishLoading(self)
  }

  override func stopLoading() {}
}

/// How the session of a request finds its protocol classes.
enum ProtocolRegistration: String, TestArgument {
  /// In the session's configuration.
  case configuration
  /// Registered process-wide, for `URLSession.shared`.
  case registered
}

@Suite("URL protocol classes", .serialized, timeLimit(minutes: 1))
struct ProtocolClassesTests {
  func session(_ registration: ProtocolRegistration) -> URLSession {
    switch registration {
    case .configuration:
      let configuration = URLSessionConfiguration.ephemeral
      configuration.protocolClasses = [EchoProtocol.self] + (configuration.protocolClasses ?? [])
      return URLSession(configuration: configuration)
    case .registered:
      return .shared
    }
  }

  func withProtocol(
    _ registration: ProtocolRegistration, _ body: (URLSession) async throws -> Void
  ) async throws {
    if registration == .registered { _ = URLProtocol.registerClass(EchoProtocol.self) }
    defer {
      if registration == .registered { URLProtocol.unregisterClass(EchoProtocol.self) }
    }
    let session = session(registration)
    defer { if registration != .registered { session.finishTasksAndInvalidate() } }
    try await body(session)
  }

  @Test(
    "answer the helpers' requests, as they answer the session's own",
    arguments: ProtocolRegistration.allCases)
  func helpersReachTheSessionsProtocols(registration: ProtocolRegistration) async throws {
    try await withProtocol(registration) { session in
      let bag = CancelBag()
      let url = URL(string: "\(EchoProtocol.scheme)://stub/profile")!
      let (data, _) = try await session.data(from: url, in: bag)
      #expect(String(decoding: data, as: UTF8.self) == "echo /profile")
      let (handed, _, _) = await completionOnNewThread { handler in
        session.dataTask(with: url, in: bag, completionHandler: handler).resume()
      }
      #expect(handed.map { String(decoding: $0, as: UTF8.self) } == "echo /profile")
      let (body, _) = try await session.stream(for: URLRequest(url: url), in: bag)
      var streamed = Data()
      for try await chunk in body { streamed.append(chunk) }
      #expect(String(decoding: streamed, as: UTF8.self) == "echo /profile")
    }
  }
}
