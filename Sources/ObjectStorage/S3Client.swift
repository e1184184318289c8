import Foundation
import Hashing
import Support
import Wire

/// Where a remote S3-compatible store is: its endpoint, bucket, region and the key that signs.
package struct S3Endpoint: Sendable, Equatable {
  /// `http` or `https`.
  package var scheme: String
  /// The host with `:port` when the URL has one (what is signed as `host`).
  package var host: String
  package var bucket: String
  package var region: String
  package var credentials: SigV4Credentials

  /// From `http(s)://host[:port]` (no path: the bucket goes in the path, path-style).
  package init?(
    url: String, bucket: String, region: String, credentials: SigV4Credentials
  ) {
    guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
      ["http", "https"].contains(scheme), let host = parts.percentEncodedHost, !host.isEmpty,
      parts.path.isEmpty || parts.path == "/", parts.query == nil, !bucket.isEmpty
    else { return nil }
    let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    self.scheme = scheme
    self.host = parts.port.map { "\(bracketed):\($0)" } ?? bracketed
    self.bucket = bucket
    self.region = region
    self.credentials = credentials
  }

  /// A presigned URL for `method` on `key` (path-style).
  package func presignedURL(
    _ method: String, key: String, query: [(name: String, value: String)] = [], expires: Int,
    at time: Timestamp
  ) -> String {
    SigV4.presignedURL(
      SigV4.Presign(
        scheme: scheme, host: host,
        request: SigV4Request(method: method, path: "/\(bucket)/\(key)", query: query),
        region: region, expires: expires),
      credentials: credentials, at: time)
  }
}

/// What a remote store answered that was not what was asked.
package enum S3ClientError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The store refused: its status, S3's error code and message.
  case refused(status: Int, code: String, message: String)
  /// No answer, or one that could not be read.
  case unreachable(String)

  package var description: String {
    switch self {
    case .refused(let status, let code, let message): "\(status) \(code): \(message)"
    case .unreachable(let reason): reason
    }
  }
}

/// The calls the server makes to a remote S3-compatible store, signed in their header, over
/// Wire's HTTP client (the devices send and fetch the bytes themselves, with presigned URLs).
package final class S3Client: Sendable {
  package let endpoint: S3Endpoint
  private let http: HTTPClient
  private let clock: any TimeSource
  private let timeout: Duration

  package init(
    endpoint: S3Endpoint, clock: any TimeSource = SystemTimeSource(),
    timeout: Duration = .seconds(60)
  ) {
    self.endpoint = endpoint
    self.http = HTTPClient()
    self.clock = clock
    self.timeout = timeout
  }

  /// Closes the client's connections.
  package func shutdown() async {
    await http.shutdown()
  }

  package func createMultipartUpload(key: String, contentType: String) async throws(S3ClientError)
    -> String
  {
    let response = try await send(
      "POST", key, query: [("uploads", "")], headers: [("Content-Type", contentType)])
    let text = String(decoding: response.body, as: UTF8.self)
    guard let id = S3XML.text(of: "UploadId", in: text[...]), !id.isEmpty else {
      throw .unreachable("CreateMultipartUpload answered no UploadId")
    }
    return id
  }

  /// The parts stored: number, ETag and size (S3 lists up to 1,000 a page; an upload here has
  /// at most 13 parts of 8 MiB).
  package func listParts(key: String, uploadId: String) async throws(S3ClientError) -> [PartInfo] {
    let response = try await send("GET", key, query: [("uploadId", uploadId)])
    let text = String(decoding: response.body, as: UTF8.self)
    do {
      return try S3XML.elements("Part", in: text[...]).map { element throws(S3Error) in
        guard let number = S3XML.text(of: "PartNumber", in: element).flatMap({ Int($0) }),
          let etag = S3XML.text(of: "ETag", in: element),
          let size = S3XML.text(of: "Size", in: element).flatMap({ Int($0) })
        else { throw .malformedXML }
        return PartInfo(
          number: number, etag: etag, size: size, lastModified: Timestamp(secondsSince1970: 0))
      }
    } catch {
      throw .unreachable("ListParts answered XML that cannot be read")
    }
  }

  package func completeMultipartUpload(
    key: String, uploadId: String, parts: [(number: Int, etag: String)]
  ) async throws(S3ClientError) {
    let body =
      "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
      + parts.map {
        "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(S3XML.escape($0.etag))</ETag></Part>"
      }.joined() + "</CompleteMultipartUpload>"
    let response = try await send(
      "POST", key, query: [("uploadId", uploadId)], body: Array(body.utf8))
    // S3 may answer 200 with an error in the body when completion fails late.
    let text = String(decoding: response.body, as: UTF8.self)
    if text.contains("<Error>") { throw Self.refusal(status: 200, text) }
  }

  package func abortMultipartUpload(key: String, uploadId: String) async throws(S3ClientError) {
    _ = try await send("DELETE", key, query: [("uploadId", uploadId)])
  }

  /// Copies an object inside the bucket (S3's CopyObject, no bytes through the server); false
  /// when there is no object at `from`.
  package func copy(from: String, to: String) async throws(S3ClientError) -> Bool {
    let response: HTTPClientResponse
    do {
      response = try await send(
        "PUT", to,
        headers: [
          ("x-amz-copy-source", SigV4.encode("/\(endpoint.bucket)/\(from)", keepingSlash: true))
        ])
    } catch .refused(404, _, _) {
      return false
    }
    // S3 may answer 200 with an error in the body when a copy fails late.
    let text = String(decoding: response.body, as: UTF8.self)
    if text.contains("<Error>") { throw Self.refusal(status: 200, text) }
    return true
  }

  /// The object's ETag; nil when there is no such key.
  package func head(key: String) async throws(S3ClientError) -> String? {
    do {
      return try await send("HEAD", key).headers["etag"] ?? ""
    } catch .refused(404, _, _) {
      return nil
    }
  }

  /// The object's size and SHA-256, read in ranges of `chunk` bytes (an upload of 100 MiB is
  /// never held whole); nil when there is no such key.
  package func digest(key: String, chunk: Int = 8 * 1024 * 1024) async throws(S3ClientError)
    -> (size: Int, sha256: [UInt8])?
  {
    let hasher = SHA256Hasher()
    var offset = 0
    while true {
      let response: HTTPClientResponse
      do {
        response = try await send(
          "GET", key, headers: [("Range", "bytes=\(offset)-\(offset + chunk - 1)")])
      } catch .refused(404, _, _) {
        return nil
      } catch .refused(416, _, _) where offset > 0 {
        break  // the size was a multiple of `chunk`
      } catch .refused(416, _, _) {
        return (0, Crypto.sha256([]))  // an empty object has no range to give
      }
      hasher.update(response.body)
      offset += response.body.count
      // The whole object (200) or the last range: fewer bytes than asked.
      if response.status.code == 200 || response.body.count < chunk { break }
    }
    return (offset, hasher.finish())
  }

  package func delete(key: String) async throws(S3ClientError) {
    _ = try await send("DELETE", key)
  }

  /// One signed request; a status outside 2xx is `.refused` with S3's code.
  private func send(
    _ method: String, _ key: String, query: [(name: String, value: String)] = [],
    headers: [(name: String, value: String)] = [], body: [UInt8] = []
  ) async throws(S3ClientError) -> HTTPClientResponse {
    let path = "/\(endpoint.bucket)/\(key)"
    let signed = SigV4.authorizationHeaders(
      for: SigV4Request(
        method: method, path: path, query: query, headers: [("host", endpoint.host)] + headers),
      payloadHash: Hex.encode(Crypto.sha256(body)), region: endpoint.region,
      credentials: endpoint.credentials, at: clock.now())
    let target =
      SigV4.encode(path, keepingSlash: true)
      + (query.isEmpty ? "" : "?" + SigV4.canonicalQuery(query))
    var request = HTTPClientRequest(
      url: "\(endpoint.scheme)://\(endpoint.host)\(target)", method: HTTPMethod(rawValue: method),
      body: body)
    for (name, value) in headers + signed { request.headers.add(name: name, value: value) }
    let response: HTTPClientResponse
    do {
      response = try await http.execute(request, timeout: timeout)
    } catch {
      throw .unreachable("\(method) \(key): \(error)")
    }
    guard (200..<300).contains(response.status.code) else {
      throw Self.refusal(status: response.status.code, response.bodyText)
    }
    return response
  }

  private static func refusal(status: Int, _ text: String) -> S3ClientError {
    .refused(
      status: status, code: S3XML.text(of: "Code", in: text[...]) ?? "Unknown",
      message: S3XML.text(of: "Message", in: text[...]) ?? "")
  }
}
