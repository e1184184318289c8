/// Routes requests by method and path pattern to handlers.
///
/// A pattern is a path whose segments are literals or `{name}` parameters:
/// `/v1/conversations/{id}/messages`. A parameter matches one non-empty segment; its
/// percent-decoded value is in ``HTTPRequest/pathParameters``. Literal routes are tried
/// before parameter routes, in the order added. An unknown path answers 404 `not_found`; a
/// known path with another method answers 405 with `Allow`.
public struct Router: Sendable {
  private struct Route: Sendable {
    let method: HTTPMethod
    let segments: [Segment]
    let handler: HTTPServer.Handler
  }

  private enum Segment: Sendable, Equatable {
    case literal(String)
    case parameter(String)
  }

  private var routes: [Route] = []

  public init() {}

  /// Adds a route.
  public mutating func add(
    _ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPServer.Handler
  ) {
    let segments: [Segment] = pattern.split(separator: "/").map { part in
      if part.hasPrefix("{") && part.hasSuffix("}") {
        return .parameter(String(part.dropFirst().dropLast()))
      }
      return .literal(String(part))
    }
    routes.append(Route(method: method, segments: segments, handler: handler))
    // Literal segments first, so `/v1/conversations/search` wins over `/{id}`.
    routes.sort { lhs, rhs in
      lhs.segments.filter { if case .parameter = $0 { true } else { false } }.count
        < rhs.segments.filter { if case .parameter = $0 { true } else { false } }.count
    }
  }

  public mutating func get(_ pattern: String, _ handler: @escaping HTTPServer.Handler) {
    add(.get, pattern, handler)
  }

  public mutating func post(_ pattern: String, _ handler: @escaping HTTPServer.Handler) {
    add(.post, pattern, handler)
  }

  public mutating func put(_ pattern: String, _ handler: @escaping HTTPServer.Handler) {
    add(.put, pattern, handler)
  }

  public mutating func patch(_ pattern: String, _ handler: @escaping HTTPServer.Handler) {
    add(.patch, pattern, handler)
  }

  public mutating func delete(_ pattern: String, _ handler: @escaping HTTPServer.Handler) {
    add(.delete, pattern, handler)
  }

  /// Runs the matching route's handler, or answers 404 / 405.
  public func handle(_ request: HTTPRequest) async -> HTTPResponse {
    let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
    let pathSegments = parts.last == "" && parts.count > 1 ? Array(parts.dropLast()) : Array(parts)
    var allowed: [HTTPMethod] = []
    for route in routes {
      guard let parameters = match(route.segments, pathSegments) else { continue }
      let matchesMethod =
        route.method == request.method || (route.method == .get && request.method == .head)
      guard matchesMethod else {
        allowed.append(route.method)
        continue
      }
      var routed = request
      routed.pathParameters = parameters
      return await route.handler(routed)
    }
    if !allowed.isEmpty {
      var response = HTTPResponse.error(
        .methodNotAllowed, code: "method_not_allowed", message: "Method not allowed here.")
      response.headers.add(
        name: "Allow", value: allowed.map(\.rawValue).joined(separator: ", "))
      return response
    }
    return .error(.notFound, code: "not_found", message: "No such route.")
  }

  private func match(_ segments: [Segment], _ path: [Substring]) -> [String: String]? {
    if segments.isEmpty { return path.isEmpty || path == [""] ? [:] : nil }
    guard segments.count == path.count else { return nil }
    var parameters: [String: String] = [:]
    for (segment, part) in zip(segments, path) {
      switch segment {
      case .literal(let literal):
        guard part == literal else { return nil }
      case .parameter(let name):
        guard !part.isEmpty, let value = percentDecode(part, plusIsSpace: false) else { return nil }
        parameters[name] = value
      }
    }
    return parameters
  }
}
