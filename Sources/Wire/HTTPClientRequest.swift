/// One request for ``HTTPClient``, in the shape of AsyncHTTPClient's `HTTPClientRequest`.
public struct HTTPClientRequest: Sendable {
  /// `http://host[:port][/path][?query]`, with the path and the query as they go on the wire
  /// (percent-encoded by the caller). A fragment is dropped.
  public var url: String
  public var method: HTTPMethod
  /// The fields to send. The client adds `Host` (unless given here) and `Content-Length`
  /// (replacing any `Content-Length` or `Transfer-Encoding` given here); `Connection: close`
  /// given here closes the connection after the response.
  public var headers: HTTPHeaders
  public var body: [UInt8]
  /// Whether sending the request twice does no more than sending it once. Such a request
  /// that fails on a reused keep-alive connection before any byte of a response arrived (the
  /// server closed the idle connection as the request went out) is sent once more, on a fresh
  /// connection. By default the method's ``HTTPMethod/isIdempotent``; set it for a POST that
  /// carries its own idempotency key (a client message ID). A request that provably never
  /// reached the server (``HTTPClientError/mayHaveReachedServer`` false) is sent again
  /// whatever this says.
  public var isIdempotent: Bool

  public init(
    url: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: [UInt8] = []
  ) {
    self.url = url
    self.method = method
    self.headers = headers
    self.body = body
    isIdempotent = method.isIdempotent
  }
}

extension HTTPClientRequest {
  /// The request as ``HTTPClient`` writes it, `Host` and `Content-Length` included: the bytes
  /// a ``ClientChannel`` sends. `Host` is the URL's authority; the scheme is not checked
  /// against the channel (an `https://` URL gives the same bytes, in plaintext).
  ///
  /// - Throws: ``HTTPClientError`` with `invalidURL`, `unsupportedScheme` or
  ///   `invalidRequest`, as ``HTTPClient/execute(_:timeout:)`` would.
  public func serialized() throws(HTTPClientError) -> [UInt8] {
    try PreparedRequest(self).bytes
  }
}
