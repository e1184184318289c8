import ChatAPI
import Support

extension ChatService {
  /// `POST /v1/media/uploads`: checks what the device declares (kind, content type, size
  /// against the limits, SHA-256, a file's name), makes the key, starts a multipart upload in
  /// the store when the bytes need more than one part, and answers the presigned URLs.
  func createUpload(_ request: APIRequest, by caller: String, at now: Timestamp)
    async throws(ServiceError) -> APIResponse
  {
    let media = try mediaStorage()
    let body = try RequestBody(request.body).decode(CreateUpload.self)
    guard body.byteCount >= 1 else { throw .badRequest("byteCount must be at least 1.") }
    guard body.sha256.utf8.count == 64, Hex.decode(body.sha256) != nil else {
      throw .badRequest("sha256 must be 64 hexadecimal digits.")
    }
    switch body.kind {
    case .image:
      guard APILimits.imageContentTypes.contains(body.contentType) else {
        throw .invalid("An image is image/jpeg or image/png.")
      }
      guard body.fileName == nil else { throw .badRequest("fileName is for files only.") }
      guard body.byteCount <= configuration.maxImageBytes else {
        throw .tooLarge("An image may be \(configuration.maxImageBytes) bytes at most.")
      }
    case .file:
      guard !body.contentType.isEmpty, body.contentType.utf8.count <= 255,
        body.contentType.contains("/")
      else { throw .badRequest("contentType must be a media type such as application/pdf.") }
      if let name = body.fileName {
        guard (1...APILimits.maxFileNameBytes).contains(name.utf8.count),
          !name.contains("/"), !name.unicodeScalars.contains(where: { $0.value < 0x20 })
        else {
          throw .badRequest(
            "fileName must be 1–\(APILimits.maxFileNameBytes) bytes, without '/' or controls.")
        }
      }
      guard body.byteCount <= configuration.maxFileBytes else {
        throw .tooLarge("A file may be \(configuration.maxFileBytes) bytes at most.")
      }
    }
    var upload = MediaUpload(
      mediaKey: random.uuidString(), ownerId: caller, kind: body.kind,
      contentType: body.contentType, byteCount: body.byteCount, sha256: body.sha256.lowercased(),
      fileName: body.fileName, uploadId: nil, complete: false, createdAt: now)
    if body.byteCount > APILimits.mediaPartBytes {
      let objectKey = upload.objectKey
      let contentType = upload.contentType
      upload.uploadId = try storage { () throws(MediaStorageError) in
        try media.startMultipart(key: objectKey, contentType: contentType)
      }
    }
    try await store.saveUpload(upload)
    return .json(
      201,
      Upload(
        mediaKey: upload.mediaKey,
        expiresAt: (now + .seconds(APILimits.mediaURLSeconds)).rfc3339,
        parts: parts(of: upload, in: media, at: now)))
  }

  /// `GET /v1/media/uploads/{key}`: what the store has of the caller's upload, and fresh URLs
  /// for every part, so a device that was killed sends only the rest.
  func uploadStatus(_ key: String, of caller: String, at now: Timestamp)
    async throws(ServiceError) -> APIResponse
  {
    let media = try mediaStorage()
    let upload = try await callersUpload(key, of: caller)
    let received =
      upload.complete
      ? []
      : try storage { () throws(MediaStorageError) in
        try media.receivedParts(key: upload.objectKey, uploadId: upload.uploadId)
      }
    return .json(
      200,
      UploadStatus(
        mediaKey: upload.mediaKey, complete: upload.complete,
        parts: upload.complete ? [] : parts(of: upload, in: media, at: now), received: received))
  }

  /// `POST /v1/media/uploads/{key}/complete`: puts the parts together and checks the bytes
  /// against what was declared. A size or SHA-256 that differs is 422, and the bytes and the
  /// upload are dropped (the device starts a new one). Completing again is 200.
  func completeUpload(_ key: String, _ request: APIRequest, of caller: String)
    async throws(ServiceError) -> APIResponse
  {
    let media = try mediaStorage()
    let upload = try await callersUpload(key, of: caller)
    let body = try RequestBody(request.body).decode(CompleteUpload.self)
    guard !upload.complete else {
      return .json(200, UploadCompleted(mediaKey: upload.mediaKey, complete: true))
    }
    if let uploadId = upload.uploadId {
      do {
        try media.completeMultipart(key: upload.objectKey, uploadId: uploadId, parts: body.parts)
      } catch .partsRefused(let why) {
        throw .invalid("The parts cannot be put together: \(why)")
      } catch {
        throw Self.unavailable(error)
      }
    }
    let digest = try storage { () throws(MediaStorageError) in
      try media.digest(key: upload.objectKey)
    }
    guard let digest else {
      throw .invalid("The store has no bytes for this upload yet: send them first.")
    }
    guard digest.byteCount == upload.byteCount, digest.sha256 == upload.sha256 else {
      try storage { () throws(MediaStorageError) in
        try media.delete(key: upload.objectKey, uploadId: upload.uploadId)
      }
      try await store.dropUpload(upload.mediaKey)
      throw .invalid(
        "The bytes are not the ones declared (\(digest.byteCount) bytes with another SHA-256, "
          + "or another size): they were dropped; start a new upload.")
    }
    try await store.markUploadComplete(upload.mediaKey)
    return .json(200, UploadCompleted(mediaKey: upload.mediaKey, complete: true))
  }

  // MARK: - Helpers

  private func mediaStorage() throws(ServiceError) -> any MediaStorage {
    guard let media else {
      throw ServiceError(.unavailable, "This server has no media store configured.")
    }
    return media
  }

  private func callersUpload(_ key: String, of caller: String) async throws(ServiceError)
    -> MediaUpload
  {
    guard let key = Identifiers.canonicalUUID(key) else {
      throw .badRequest("The media key is malformed.")
    }
    guard let upload = try await store.upload(key, of: caller) else {
      throw ServiceError(.notFound, "No such upload.")
    }
    return upload
  }

  /// The presigned URLs of every part: one `PutObject` up to 8 MiB, else `UploadPart`s of
  /// 8 MiB.
  private func parts(of upload: MediaUpload, in media: any MediaStorage, at now: Timestamp)
    -> [UploadPart]
  {
    let seconds = APILimits.mediaURLSeconds
    guard let uploadId = upload.uploadId else {
      return [
        UploadPart(
          number: 1, url: media.putURL(key: upload.objectKey, expires: seconds, now: now),
          offset: 0, byteCount: upload.byteCount)
      ]
    }
    let size = APILimits.mediaPartBytes
    return stride(from: 0, to: upload.byteCount, by: size).enumerated().map { index, offset in
      UploadPart(
        number: index + 1,
        url: media.partURL(
          key: upload.objectKey, uploadId: uploadId, number: index + 1, expires: seconds, now: now),
        offset: offset, byteCount: min(size, upload.byteCount - offset))
    }
  }

  private func storage<T>(_ body: () throws(MediaStorageError) -> T) throws(ServiceError) -> T {
    do {
      return try body()
    } catch {
      throw Self.unavailable(error)
    }
  }

  private static func unavailable(_ error: MediaStorageError) -> ServiceError {
    var failure = ServiceError(
      .unavailable, "The media store cannot be reached; try again.", retryAfterSeconds: 1)
    failure.detail = "\(error)"
    return failure
  }
}
