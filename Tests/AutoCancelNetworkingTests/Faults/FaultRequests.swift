import Foundation
import LoopbackHTTPServer

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The requests of the fault matrix: a fault's route on the loopback server, for a form.
enum FaultRequests {
  /// The body of a GET, 64 KiB: the faults that cut it do so halfway.
  static let bodySize = 65_536
  /// What the upload forms send; `/upload` replies with the count, `"4096"`.
  static let uploadBody = Data(repeating: 0x61, count: 4096)

  /// The request that meets `fault` with `form`'s method, named `id` at the server, giving up
  /// after `timeout` seconds without a byte.
  static func request(
    _ fault: NetworkFault, form: RequestForm, server: LoopbackHTTPServer, id: String,
    timeout: TimeInterval
  ) -> URLRequest {
    let half = bodySize / 2
    // An upload's reply is its 4-character byte count: a fault cuts it after 2 characters.
    let faulty = form.uploads ? "/upload?" : "/bytes?size=\(bodySize)&after=\(half)&"
    let url: URL
    switch fault {
    case .reset, .close, .silence, .stall:
      url = server.url("\(faulty)fault=\(fault.rawValue)&id=\(id)")
    case .hangUp:
      url = server.url("\(faulty)fault=hangup&id=\(id)")
    case .badChunk:
      url = server.url("\(faulty)fault=badchunk&id=\(id)")
    case .serverKilled:
      url = server.url("\(faulty)fault=stall&id=\(id)")
    case .loop:
      url = server.url("/loop?id=\(id)")
    case .redirect:
      url = redirect(server, to: "/bytes?size=\(bodySize)&id=\(id)", id: id)
    case .redirectToStall:
      url = redirect(
        server, to: "/bytes?size=\(bodySize)&fault=stall&after=\(half)&id=\(id)", id: id)
    case .refused:
      url = server.closedPortURL("/bytes?size=\(bodySize)&id=\(id)")
    }
    return configured(URLRequest(url: url), form: form, timeout: timeout)
  }

  /// A request that succeeds, to show that the session still works after a fault.
  static func healthy(
    form: RequestForm, server: LoopbackHTTPServer, id: String
  ) -> (request: URLRequest, body: CellOutcome) {
    if form.uploads {
      let request = configured(URLRequest(url: server.url("/upload?id=\(id)")), form: form)
      return (request, .body(4))
    }
    return (URLRequest(url: server.url("/bytes?size=1000&id=\(id)")), .body(1000))
  }

  private static func redirect(_ server: LoopbackHTTPServer, to target: String, id: String) -> URL {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "/-._~")
    let encoded = target.addingPercentEncoding(withAllowedCharacters: allowed)!
    return server.url("/redirect?to=\(encoded)&id=\(id)")
  }

  private static func configured(
    _ request: URLRequest, form: RequestForm, timeout: TimeInterval? = nil
  ) -> URLRequest {
    var request = request
    if form.uploads { request.httpMethod = "POST" }
    if let timeout { request.timeoutInterval = timeout }
    return request
  }
}
