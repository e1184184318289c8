/// What S3 says went wrong, with its status and code (the XML error's `Code`).
package enum S3Error: Error, Equatable, Sendable {
  case noSuchBucket
  case noSuchKey
  case noSuchUpload
  /// A part named at completion that the store does not have, or whose ETag differs.
  case invalidPart(Int)
  /// Parts named at completion out of ascending order (or twice).
  case invalidPartOrder
  /// A part other than the last is smaller than S3's minimum (5 MiB).
  case entityTooSmall
  case invalidRange
  case invalidArgument(String)
  case malformedXML
  case signatureDoesNotMatch
  case accessDenied(String)
  case invalidAccessKeyId
  case requestTimeTooSkewed
  case badDigest
  case notImplemented(String)
  case internalError(String)

  package var status: Int {
    switch self {
    case .noSuchBucket, .noSuchKey, .noSuchUpload: 404
    case .invalidRange: 416
    case .signatureDoesNotMatch, .accessDenied, .invalidAccessKeyId, .requestTimeTooSkewed: 403
    case .notImplemented: 501
    case .internalError: 500
    default: 400
    }
  }

  package var code: String {
    switch self {
    case .noSuchBucket: "NoSuchBucket"
    case .noSuchKey: "NoSuchKey"
    case .noSuchUpload: "NoSuchUpload"
    case .invalidPart: "InvalidPart"
    case .invalidPartOrder: "InvalidPartOrder"
    case .entityTooSmall: "EntityTooSmall"
    case .invalidRange: "InvalidRange"
    case .invalidArgument: "InvalidArgument"
    case .malformedXML: "MalformedXML"
    case .signatureDoesNotMatch: "SignatureDoesNotMatch"
    case .accessDenied: "AccessDenied"
    case .invalidAccessKeyId: "InvalidAccessKeyId"
    case .requestTimeTooSkewed: "RequestTimeTooSkewed"
    case .badDigest: "XAmzContentSHA256Mismatch"
    case .notImplemented: "NotImplemented"
    case .internalError: "InternalError"
    }
  }

  package var message: String {
    switch self {
    case .noSuchBucket: "The specified bucket does not exist."
    case .noSuchKey: "The specified key does not exist."
    case .noSuchUpload: "The specified multipart upload does not exist."
    case .invalidPart(let number): "Part \(number) was not uploaded, or its ETag differs."
    case .invalidPartOrder: "The list of parts was not in ascending order."
    case .entityTooSmall: "A part other than the last is smaller than 5 MiB."
    case .invalidRange: "The requested range is not satisfiable."
    case .invalidArgument(let detail): detail
    case .malformedXML: "The XML you provided was not well-formed."
    case .signatureDoesNotMatch:
      "The request signature we calculated does not match the signature you provided."
    case .accessDenied(let detail): detail
    case .invalidAccessKeyId: "The access key ID you provided does not exist in our records."
    case .requestTimeTooSkewed: "The difference between the request time and now is too large."
    case .badDigest: "The provided x-amz-content-sha256 does not match the body."
    case .notImplemented(let what): "\(what) is not implemented by this store."
    // The detail (paths, errno) stays on the server, in `String(describing:)`.
    case .internalError: "We encountered an internal error. Please try again."
    }
  }
}
