import Foundation

/// A parsed HTTP/1.x request line and header block.
struct HTTPRequestHead {
  var method: String
  /// The request target as sent: path and query, e.g. `/loop?id=a`.
  var target: String
  var path: String
  var query: [String: String]
  /// Whether the request is HTTP/1.1 (otherwise 1.0).
  var isHTTP11: Bool
  var contentLength: Int?
  var isChunked: Bool
  var keepAlive: Bool
  var expectsContinue: Bool
  var requestID: String?
  /// The `Authorization` header's value, if any.
  var authorization: String?

  /// Whether the request carries a body that must be read before the next request.
  var hasBody: Bool { isChunked || (contentLength ?? 0) > 0 }

  /// Parses the bytes before the blank line; `nil` if they are not a valid HTTP/1.x head.
  init?(_ bytes: ArraySlice<UInt8>) {
    guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
    let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
    let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
    guard requestLine.count == 3, !requestLine[0].isEmpty, requestLine[1].first == "/",
      requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0"
    else { return nil }
    method = String(requestLine[0])
    isHTTP11 = requestLine[2] == "HTTP/1.1"

    let target = requestLine[1]
    self.target = String(target)
    if let mark = target.firstIndex(of: "?") {
      path = String(target[..<mark])
      query = Self.parseQuery(target[target.index(after: mark)...])
    } else {
      path = String(target)
      query = [:]
    }

    var connectionTokens: [String] = []
    contentLength = nil
    isChunked = false
    expectsContinue = false
    requestID = nil
    authorization = nil
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { return nil }
      let name = line[..<colon].lowercased()
      guard !name.isEmpty, !name.contains(" "), !name.contains("\t") else { return nil }
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      switch name {
      case "content-length":
        guard let length = Int(value), length >= 0,
          contentLength == nil || contentLength == length
        else { return nil }
        contentLength = length
      case "transfer-encoding":
        let codings = value.lowercased().split(separator: ",").map {
          $0.trimmingCharacters(in: .whitespaces)
        }
        guard codings.last == "chunked" else { return nil }
        isChunked = true
      case "connection":
        connectionTokens += value.lowercased().split(separator: ",").map {
          $0.trimmingCharacters(in: .whitespaces)
        }
      case "expect":
        expectsContinue = value.lowercased() == "100-continue"
      case "x-request-id":
        requestID = value
      case "authorization":
        authorization = value
      default:
        break
      }
    }
    if isChunked { contentLength = nil }
    keepAlive =
      isHTTP11 ? !connectionTokens.contains("close") : connectionTokens.contains("keep-alive")
  }

  private static func parseQuery(_ query: Substring) -> [String: String] {
    var result: [String: String] = [:]
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = decode(parts[0])
      result[name] = parts.count > 1 ? decode(parts[1]) : ""
    }
    return result
  }

  private static func decode(_ component: Substring) -> String {
    let spaced = component.replacingOccurrences(of: "+", with: " ")
    return spaced.removingPercentEncoding ?? spaced
  }
}
