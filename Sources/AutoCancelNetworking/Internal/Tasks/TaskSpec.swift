import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The task a library request runs: what to make, on whichever session runs it.
enum TaskSpec: Sendable {
  case data(URLRequest)
  case upload(URLRequest, Data)
  case uploadFile(URLRequest, URL)
  case download(URLRequest)
  /// A data task whose body the library streams.
  case stream(URLRequest)

  /// The request's URL.
  var url: URL? {
    switch self {
    case .data(let request), .upload(let request, _), .uploadFile(let request, _),
      .download(let request), .stream(let request):
      request.url
    }
  }

  /// The public name of the task's class.
  var typeName: String {
    switch self {
    case .data, .stream: "URLSessionDataTask"
    case .upload, .uploadFile: "URLSessionUploadTask"
    case .download: "URLSessionDownloadTask"
    }
  }

  /// The task, made on `session`, whose delegate hears its events.
  func makeTask(on session: URLSession) -> URLSessionTask {
    switch self {
    case .data(let request), .stream(let request): session.dataTask(with: request)
    case .upload(let request, let body): session.uploadTask(with: request, from: body)
    case .uploadFile(let request, let file): session.uploadTask(with: request, fromFile: file)
    case .download(let request): session.downloadTask(with: request)
    }
  }

  #if !canImport(FoundationNetworking)
    /// The task, made on `session` with a completion handler: the body is the data, or the
    /// downloaded file, valid until `completion` returns.
    func makeTask(
      on session: URLSession,
      completion: @escaping @Sendable (TransferBody, URLResponse?, (any Error)?) -> Void
    ) -> URLSessionTask {
      switch self {
      case .data(let request), .stream(let request):
        session.dataTask(with: request) { completion(.data($0), $1, $2) }
      case .upload(let request, let body):
        session.uploadTask(with: request, from: body) { completion(.data($0), $1, $2) }
      case .uploadFile(let request, let file):
        session.uploadTask(with: request, fromFile: file) { completion(.data($0), $1, $2) }
      case .download(let request):
        session.downloadTask(with: request) { completion(.file($0), $1, $2) }
      }
    }
  #endif
}

/// A task's body as the library hands it to its request: the data of a data or upload task,
/// or the file of a download.
enum TransferBody: Sendable {
  case data(Data?)
  case file(URL?)
}

/// What a request's body can be made of: `Data` or a file's `URL`.
protocol TransferredBody: Sendable {
  init?(transferred body: TransferBody)
  /// Lets go of what nobody will read: a downloaded file is removed.
  func discard()
}

extension Data: TransferredBody {
  init?(transferred body: TransferBody) {
    guard case .data(let data?) = body else { return nil }
    self = data
  }

  func discard() {}
}

extension URL: TransferredBody {
  init?(transferred body: TransferBody) {
    guard case .file(let file?) = body else { return nil }
    self = file
  }

  func discard() { try? FileManager.default.removeItem(at: self) }
}
