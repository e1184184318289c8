import ChatAPI
import ChatData
import Foundation
import Wire

/// The live `HTTPTransport` on Linux: Wire's `HTTPClient`, with keep-alive connections and a
/// typed error, never a crash, for a response cut at any byte. (FoundationNetworking's
/// URLSession can take the whole process down when a connection is cut mid-exchange;
/// `URLSessionTransport` stays for Apple platforms.)
///
/// Errors map to the classes the engine knows, as `URLSessionTransport` maps them:
/// `.timeout` for a request that timed out after it was fully written (the server may have
/// acted on it), `.offline` for everything else, a failure before the request was fully
/// written (refused, no such host, a connect or write that timed out, a reset) or a connection
/// cut before the reply was complete. A TLS handshake that failed for a reason waiting does
/// not fix (a certificate that does not verify, a plaintext server) is `.tlsFailed`.
///
/// Besides the idempotent methods, the POSTs the server recognises when they come twice (a
/// message, by its client message ID; the read and delivered numbers, only ever raised) are
/// sent once more when a reused keep-alive connection turns out closed before any byte of the
/// reply (see `HTTPClientRequest.isIdempotent`). Sign-in, refresh (its token is single use)
/// and creating a conversation are not.
public final class WireHTTPTransport: HTTPTransport, ObjectTransfer {
  /// Why a base URL is refused.
  public struct BaseURLError: Error, Equatable, CustomStringConvertible {
    public let url: String
    public let reason: String

    public var description: String { "\(url): \(reason)" }
  }

  public let baseURL: URL
  public let timeout: Duration
  /// How long one object-store request (a part of up to 8 MiB, or a piece of a download) may
  /// take.
  public let objectTimeout: Duration
  private let client: HTTPClient
  /// `http://host[:port]` or `https://host[:port]`.
  private let origin: String
  /// The base URL's path, without a trailing slash (`""` for none).
  private let pathPrefix: String

  /// - Parameters:
  ///   - baseURL: the server, `http[s]://host[:port][/prefix]`. Over `https` the server's
  ///     certificate is verified with `configuration.tls` (nil: the system's store, or
  ///     `SSL_CERT_FILE`); a handshake that fails is `.tlsFailed` with the reason (`.offline`
  ///     when it stalled or was cut).
  ///   - timeout: how long one request may take, connect included, before it counts as a
  ///     timeout.
  ///   - objectTimeout: the same for a request to object storage (`ObjectTransfer`).
  public init(
    baseURL: URL, timeout: Duration = .seconds(15), objectTimeout: Duration = .seconds(300),
    configuration: HTTPClient.Configuration = HTTPClient.Configuration()
  ) throws(BaseURLError) {
    let text = baseURL.absoluteString
    func refuse(_ reason: String) -> BaseURLError { BaseURLError(url: text, reason: reason) }
    guard let schemeEnd = text.range(of: "://") else { throw refuse("not an http:// URL") }
    let scheme = text[..<schemeEnd.lowerBound].lowercased()
    guard scheme == "http" || scheme == "https" else {
      throw refuse("not an http:// or https:// URL")
    }
    let rest = text[schemeEnd.upperBound...]
    let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
    let authority = rest[..<authorityEnd]
    let path = rest[authorityEnd...]
    guard !authority.isEmpty, !authority.contains("@"), !authority.contains("?"),
      !authority.contains("#")
    else { throw refuse("not \(scheme)://host[:port][/prefix]") }
    guard !path.contains("?"), !path.contains("#") else {
      throw refuse("a base URL has no query or fragment")
    }
    self.baseURL = baseURL
    self.timeout = timeout
    self.objectTimeout = objectTimeout
    origin = scheme + "://" + authority
    pathPrefix = path.hasSuffix("/") ? String(path.dropLast()) : String(path)
    client = HTTPClient(configuration: configuration)
  }

  public func send(_ request: APIRequest) async throws(TransportError) -> APIResponse {
    var target = pathPrefix + Self.escapedPath(request.path)
    if !request.query.isEmpty {
      target +=
        "?"
        + request.query.map { "\(Self.escaped($0.name))=\(Self.escaped($0.value))" }
        .joined(separator: "&")
    }
    var wire = HTTPClientRequest(
      url: origin + target, method: HTTPMethod(rawValue: request.method), body: request.body)
    for (name, value) in request.headers { wire.headers.add(name: name, value: value) }
    wire.isIdempotent = wire.isIdempotent || Self.isSafeToRepeat(request)
    return try await execute(wire, timeout: max(timeout, request.timeout ?? .zero))
  }

  /// A presigned URL, sent as given (it is already escaped and signed), over the same
  /// connections and TLS trust as the API.
  public func send(_ request: ObjectRequest) async throws(TransportError) -> APIResponse {
    var wire = HTTPClientRequest(
      url: request.url, method: HTTPMethod(rawValue: request.method), body: request.body)
    for (name, value) in request.headers { wire.headers.add(name: name, value: value) }
    return try await execute(wire, timeout: objectTimeout)
  }

  private func execute(_ wire: HTTPClientRequest, timeout: Duration)
    async throws(TransportError) -> APIResponse
  {
    let response: HTTPClientResponse
    do {
      response = try await client.execute(wire, timeout: timeout)
    } catch {
      throw Self.map(error)
    }
    return APIResponse(
      status: response.status.code, headers: HeaderFields(response.headers.fields),
      body: response.body)
  }

  /// A timeout after the whole request was written may have reached the server; a failure
  /// before it was written certainly did not; any other failure may have.
  static func map(_ error: HTTPClientError) -> TransportError {
    switch error.reason {
    case .timedOut where error.mayHaveReachedServer: .timeout
    case .tls(let failure) where !failure.isTemporary: .tlsFailed(failure.description)
    default:
      error.mayHaveReachedServer ? .offline(error.description) : .unreachable(error.description)
    }
  }

  /// Whether the server keeps one effect when this POST arrives twice.
  static func isSafeToRepeat(_ request: APIRequest) -> Bool {
    switch Endpoint(method: request.method, path: request.path) {
    case .postItem?, .read?, .delivered?: true
    default: false
    }
  }

  /// A query name or value: everything but RFC 3986's unreserved characters percent-encoded
  /// (so `+`, `&` and `=` in a cursor survive the server's decoding).
  static func escaped(_ text: String) -> String {
    var result = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        result.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    return result
  }

  /// The path as given (it is not decoded), with only the bytes a request line cannot carry
  /// percent-encoded.
  static func escapedPath(_ path: String) -> String {
    guard path.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F || $0 == 0x3F || $0 == 0x23 })
    else { return path }
    var result = ""
    for byte in path.utf8 {
      if byte <= 0x20 || byte >= 0x7F || byte == 0x3F || byte == 0x23 {
        result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      } else {
        result.unicodeScalars.append(Unicode.Scalar(byte))
      }
    }
    return result
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
