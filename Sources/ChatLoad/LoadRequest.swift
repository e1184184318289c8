import Wire

/// The bytes of one request of a load, as Wire's client writes them
/// (``HTTPClientRequest/serialized()``): `Host`, an optional bearer token, an optional JSON body
/// with its `Content-Type` (and `Content-Length`, which a POST always has).
public enum LoadRequest {
  /// `method` `path` on `host` (numeric) and `port`.
  public static func make(
    _ method: HTTPMethod, host: String = "127.0.0.1", port: Int, path: String,
    token: String? = nil, json: String? = nil
  ) throws(LoadError) -> [UInt8] {
    var headers: HTTPHeaders = [:]
    if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
    if json != nil { headers.add(name: "Content-Type", value: "application/json") }
    let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    do {
      return try HTTPClientRequest(
        url: "http://\(authority)\(path)", method: method, headers: headers,
        body: Array((json ?? "").utf8)
      ).serialized()
    } catch {
      throw LoadError("cannot write the request \(method.rawValue) \(path): \(error)")
    }
  }
}
