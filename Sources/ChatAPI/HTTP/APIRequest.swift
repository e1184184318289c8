/// One HTTP request of API.md as plain values: what the client's transports send and the
/// server's handler answers, whatever carries it (Wire, URLSession, the simulated network).
public struct APIRequest: Sendable, Equatable {
  /// `GET`, `POST`, … (upper case).
  public var method: String
  /// The path without the query string (`/v1/conversations/{id}/messages`), not
  /// percent-decoded: no valid id needs escaping, so an escaped one is simply malformed.
  public var path: String
  /// Decoded query parameters, in the order written.
  public var query: QueryItems
  public var headers: HeaderFields
  public var body: [UInt8]
  /// How long the reply may take when longer than a transport's usual limit: a long poll
  /// (`GET /v1/sync?wait=`) is answered only after its wait. Nil: the transport's own.
  public var timeout: Duration?
  /// The numeric IP address of the peer the request came from, as the server's network layer
  /// accepted its connection; never read from a header (a client could write any). Nil for a
  /// request that did not come over a network (tests, the simulation, a client's request).
  public var peerAddress: String?

  public init(
    method: String, path: String, query: QueryItems = [:], headers: HeaderFields = [:],
    body: [UInt8] = [], timeout: Duration? = nil, peerAddress: String? = nil
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
    self.timeout = timeout
    self.peerAddress = peerAddress
  }

  /// A request for `endpoint` with `body` encoded as JSON.
  public init(_ endpoint: Endpoint, query: QueryItems = [:], json body: some Encodable) {
    self.init(
      method: endpoint.method, path: endpoint.path, query: query,
      headers: ["Content-Type": APIResponse.jsonContentType], body: APICoding.encode(body))
  }

  /// A request for `endpoint` without a body.
  public init(_ endpoint: Endpoint, query: QueryItems = [:], headers: HeaderFields = [:]) {
    self.init(method: endpoint.method, path: endpoint.path, query: query, headers: headers)
  }
}

/// One HTTP response, as plain values.
public struct APIResponse: Sendable, Equatable {
  public var status: Int
  public var headers: HeaderFields
  public var body: [UInt8]

  public init(status: Int, headers: HeaderFields = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public static let jsonContentType = "application/json; charset=utf-8"

  /// `value` as a JSON body.
  public static func json(_ status: Int, _ value: some Encodable) -> APIResponse {
    APIResponse(
      status: status, headers: ["Content-Type": jsonContentType], body: APICoding.encode(value))
  }

  public static func text(_ status: Int, _ text: String, contentType: String) -> APIResponse {
    APIResponse(status: status, headers: ["Content-Type": contentType], body: Array(text.utf8))
  }

  public static let noContent = APIResponse(status: 204)

  /// The error body of a 4xx/5xx, if it has one.
  public var errorBody: ErrorResponse? {
    try? APICoding.decode(ErrorResponse.self, from: body)
  }
}

/// Query parameters in order; looked up by name (the first of that name).
public struct QueryItems: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
  public var items: [(name: String, value: String)]

  public init(_ items: [(name: String, value: String)] = []) {
    self.items = items
  }

  public init(dictionaryLiteral elements: (String, String)...) {
    items = elements.map { (name: $0.0, value: $0.1) }
  }

  public subscript(name: String) -> String? {
    items.first { $0.name == name }?.value
  }

  public mutating func append(_ name: String, _ value: String) {
    items.append((name, value))
  }

  public var isEmpty: Bool { items.isEmpty }

  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
    items.makeIterator()
  }

  public static func == (lhs: QueryItems, rhs: QueryItems) -> Bool {
    lhs.items.elementsEqual(rhs.items) { $0 == $1 }
  }
}

/// Header fields in order, as written; names compared without regard to case.
public struct HeaderFields: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
  public var fields: [(name: String, value: String)]

  public init(_ fields: [(name: String, value: String)] = []) {
    self.fields = fields
  }

  public init(dictionaryLiteral elements: (String, String)...) {
    fields = elements.map { (name: $0.0, value: $0.1) }
  }

  /// The first field called `name` (any case); setting replaces every field of that name.
  public subscript(name: String) -> String? {
    get {
      let lowered = name.lowercased()
      return fields.first { $0.name.lowercased() == lowered }?.value
    }
    set {
      let lowered = name.lowercased()
      fields.removeAll { $0.name.lowercased() == lowered }
      if let newValue { fields.append((name, newValue)) }
    }
  }

  /// Adds a field, keeping any of the same name.
  public mutating func add(_ name: String, _ value: String) {
    fields.append((name, value))
  }

  public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
    fields.makeIterator()
  }

  public static func == (lhs: HeaderFields, rhs: HeaderFields) -> Bool {
    lhs.fields.elementsEqual(rhs.fields) { $0 == $1 }
  }
}
