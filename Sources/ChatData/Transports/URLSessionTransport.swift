import ChatAPI
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The live `HTTPTransport`: URLSession (FoundationNetworking on Linux), one timeout per
/// request, and errors mapped to the classes the outbox needs.
public final class URLSessionTransport: HTTPTransport {
  public let baseURL: URL
  public let timeout: TimeInterval
  private let session: URLSession

  /// - Parameters:
  ///   - baseURL: the server, e.g. `http://127.0.0.1:8080`.
  ///   - timeout: how long one request may take before it counts as a timeout.
  /// The longest a request may ask for (`APIRequest.timeout`): a long poll's 60 s and then some.
  static let longestRequest: TimeInterval = 90

  public init(baseURL: URL, timeout: TimeInterval = 15) {
    self.baseURL = baseURL
    self.timeout = timeout
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout
    // A request's own longer limit (a long poll) is set on the request; the resource limit
    // only stops a transfer that never ends.
    configuration.timeoutIntervalForResource = max(timeout, Self.longestRequest)
    configuration.httpMaximumConnectionsPerHost = 4
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.urlCache = nil
    session = URLSession(configuration: configuration)
  }

  deinit {
    session.finishTasksAndInvalidate()
  }

  public func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
      throw .unreachable("invalid server URL")
    }
    components.percentEncodedPath =
      components.percentEncodedPath.trimmingSuffix("/")
      + request.path
    if !request.query.isEmpty {
      components.queryItems = request.query.map { URLQueryItem(name: $0.name, value: $0.value) }
    }
    guard let url = components.url else { throw .unreachable("invalid request URL") }
    let limit = max(timeout, min(request.timeout?.secondsValue ?? 0, Self.longestRequest))
    var urlRequest = URLRequest(url: url, timeoutInterval: limit)
    urlRequest.httpMethod = request.method
    for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
    urlRequest.httpBody = request.body.isEmpty ? nil : Data(request.body)
    // The request runs in a task of its own, out of reach of the caller's cancellation: in
    // FoundationNetworking, cancelling `data(for:)` while its reply completes deadlocks (the
    // canceller holds the task's status lock and waits for URLSession's queue, which holds
    // the reply and waits for that lock). A request is never recalled anyway; its timeout
    // bounds it, and a late reply is harmless.
    let session = session
    let exchange = Task { try await session.data(for: urlRequest) }
    do {
      let (data, response) = try await exchange.value
      guard let http = response as? HTTPURLResponse else {
        throw TransportError.offline("not an HTTP response")
      }
      var headers = HeaderFields()
      for (name, value) in http.allHeaderFields {
        if let name = name as? String, let value = value as? String { headers.add(name, value) }
      }
      return APIResponse(status: http.statusCode, headers: headers, body: Array(data))
    } catch let error as TransportError {
      throw error
    } catch let error as URLError {
      throw Self.map(error)
    } catch {
      throw .offline("\(error)")
    }
  }

  /// A timeout may have reached the server; no network, no host or a refused connection
  /// certainly did not; any other failure may have.
  static func map(_ error: URLError) -> TransportError {
    switch error.code {
    case .timedOut: .timeout
    case .notConnectedToInternet, .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed:
      .unreachable(error.localizedDescription)
    default: .offline(error.localizedDescription)
    }
  }
}

extension String {
  fileprivate func trimmingSuffix(_ suffix: String) -> String {
    hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
  }
}
