import ChatAPI
import Foundation
import Support

extension ChatService {
  /// `POST /v1/media/uploads`: checks what the device declares (kind, content type, size
  /// against the limits, SHA-256, a file's name), makes the key, starts a multipart upload in
  /// the store when the bytes need more than one part, and answers the presigned URLs.
  func createUpload(_ request: APIRequest, by caller: String, at now: Timestamp)
    async throws -> APIResponse
  {
    let media = try mediaStorage()
    let body = try RequestBody(request.body).decode(CreateUpload.self)
    // API.md's precedence: 413 before 400 and 422.
    let limit = body.kind == .image ? configuration.maxImageBytes : configuration.maxFileBytes
    guard body.byteCount <= limit else {
      throw ServiceError.tooLarge(
        "A\(body.kind == .image ? "n image" : " file") may be \(limit) bytes at most.")
    }
    guard body.sha256.utf8.count == 64, Hex.decode(body.sha256) != nil else {
      throw ServiceError.badRequest("sha256 must be 64 hexadecimal digits.")
    }
    switch body.kind {
    case .image:
      guard APILimits.imageContentTypes.contains(body.contentType) else {
        throw ServiceError.invalid("An image is image/jpeg or image/png.")
      }
      guard body.fileName == nil else {
        throw ServiceError.badRequest("fileName is for files only.")
      }
    case .file:
      guard !body.contentType.isEmpty, body.contentType.utf8.count <= 255,
        body.contentType.contains("/")
      else {
        throw ServiceError.badRequest("contentType must be a media type such as application/pdf.")
      }
      if let name = body.fileName {
        guard (1...APILimits.maxFileNameBytes).contains(name.utf8.count),
          !name.contains("/"), !name.unicodeScalars.contains(where: { $0.value < 0x20 })
        else {
          throw ServiceError.badRequest(
            "fileName must be 1–\(APILimits.maxFileNameBytes) bytes, without '/' or controls.")
        }
      }
    }
    // A size out of range, as API.md ranks it: after every 400.
    guard body.byteCount >= 1 else { throw ServiceError.invalid("byteCount must be at least 1.") }
    var upload = MediaUpload(
      mediaKey: random.uuidString(), ownerId: caller, kind: body.kind,
      contentType: body.contentType, byteCount: body.byteCount, sha256: body.sha256.lowercased(),
      fileName: body.fileName, uploadId: nil, complete: false, createdAt: now)
    if body.byteCount > APILimits.mediaPartBytes {
      let objectKey = upload.incomingKey
      let contentType = upload.contentType
      upload.uploadId = try await storage { () async throws(MediaStorageError) in
        try await media.startMultipart(key: objectKey, contentType: contentType)
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
    async throws -> APIResponse
  {
    let media = try mediaStorage()
    let upload = try await callersUpload(key, of: caller)
    let received = upload.complete ? [] : try await receivedParts(of: upload, in: media, at: now)
    return .json(
      200,
      UploadStatus(
        mediaKey: upload.mediaKey, complete: upload.complete,
        parts: upload.complete ? [] : parts(of: upload, in: media, at: now), received: received))
  }

  /// The parts the store holds. A multipart upload the store no longer knows may have been put
  /// together by a completion still under way (its device killed while it waited, the next
  /// process asking for the parts): then every part counts as received, so the device asks to
  /// complete, which goes on from where that completion is. Gone without its bytes: 422.
  private func receivedParts(of upload: MediaUpload, in media: any MediaStorage, at now: Timestamp)
    async throws(ServiceError) -> [ReceivedPart]
  {
    do {
      return try await media.receivedParts(key: upload.incomingKey, uploadId: upload.uploadId)
    } catch .partsRefused(let why) {
      guard try await bytesPlaced(of: upload, in: media) else {
        throw .invalid("The store refused: \(why)")
      }
      return parts(of: upload, in: media, at: now).map {
        ReceivedPart(number: $0.number, etag: "")
      }
    } catch {
      throw Self.unavailable(error)
    }
  }

  /// Whether the upload's parts were put together already (by a completion, finished or
  /// under way): its bytes are in the store, where the parts went or where they are moved.
  private func bytesPlaced(of upload: MediaUpload, in media: any MediaStorage)
    async throws(ServiceError) -> Bool
  {
    try await storage { () async throws(MediaStorageError) in
      if try await media.digest(key: upload.incomingKey) != nil { return true }
      return try await media.digest(key: upload.mediaObjectKey) != nil
    }
  }

  /// `POST /v1/media/uploads/{key}/complete`: puts the parts together, moves the bytes where
  /// no presigned `PUT` ever pointed (`MediaUpload.mediaObjectKey`: the device's URLs may live
  /// on, and must not be able to change bytes already checked), then checks size and SHA-256.
  /// Bytes that differ from what was declared are 422 and dropped, with the upload (the device
  /// starts a new one). Each step can be taken again: a completion retried after a lost answer
  /// or a failure half-way goes on from where the first one stopped; once complete, 200.
  func completeUpload(_ key: String, _ request: APIRequest, of caller: String)
    async throws -> APIResponse
  {
    let media = try mediaStorage()
    let upload = try await callersUpload(key, of: caller)
    let body = try RequestBody(request.body).decode(CompleteUpload.self)
    guard !upload.complete else {
      return .json(200, UploadCompleted(mediaKey: upload.mediaKey, complete: true))
    }
    if let uploadId = upload.uploadId {
      do {
        try await media.completeMultipart(
          key: upload.incomingKey, uploadId: uploadId, parts: body.parts)
      } catch .partsRefused(let why) {
        // Already put together by a completion that failed later: go on with its bytes.
        guard try await bytesPlaced(of: upload, in: media) else {
          throw ServiceError.invalid("The parts cannot be put together: \(why)")
        }
      } catch {
        throw Self.unavailable(error)
      }
    }
    try await storage { () async throws(MediaStorageError) in
      _ = try await media.move(from: upload.incomingKey, to: upload.mediaObjectKey)
    }
    let digest = try await storage { () async throws(MediaStorageError) in
      try await media.digest(key: upload.mediaObjectKey)
    }
    guard let digest else {
      throw ServiceError.invalid("The store has no bytes for this upload yet: send them first.")
    }
    guard digest.byteCount == upload.byteCount, digest.sha256 == upload.sha256 else {
      try await storage { () async throws(MediaStorageError) in
        try await media.delete(key: upload.mediaObjectKey, uploadId: nil)
      }
      try await store.dropUpload(upload.mediaKey)
      throw ServiceError.invalid(
        "The bytes are not the ones declared (another size or SHA-256): they were dropped; "
          + "start a new upload.")
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

  private func callersUpload(_ key: String, of caller: String) async throws
    -> MediaUpload
  {
    guard let key = UUIDText.canonical(key) else {
      throw ServiceError.badRequest("The media key is malformed.")
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
          number: 1, url: media.putURL(key: upload.incomingKey, expires: seconds, now: now),
          offset: 0, byteCount: upload.byteCount)
      ]
    }
    let size = APILimits.mediaPartBytes
    return stride(from: 0, to: upload.byteCount, by: size).enumerated().map { index, offset in
      UploadPart(
        number: index + 1,
        url: media.partURL(
          key: upload.incomingKey, uploadId: uploadId, number: index + 1, expires: seconds,
          now: now),
        offset: offset, byteCount: min(size, upload.byteCount - offset))
    }
  }

  private func storage<T>(_ body: () async throws(MediaStorageError) -> T)
    async throws(ServiceError) -> T
  {
    do {
      return try await body()
    } catch .partsRefused(let why) {
      throw ServiceError.invalid("The store refused: \(why)")
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

extension ChatService {
  /// `GET /v1/media/{key}`: a presigned `GET` of the bytes, for a user who can see a message
  /// that carries the key (anyone else, the uploader included before the message, gets 404).
  func download(_ rawKey: String, for caller: String, at now: Timestamp)
    async throws -> APIResponse
  {
    let media = try mediaStorage()
    guard let key = UUIDText.canonical(rawKey) else {
      throw ServiceError.badRequest("The media key is malformed.")
    }
    guard let (upload, newestCarrier) = try await store.visibleMedia(key, to: caller) else {
      throw ServiceError(.notFound, "No such media.")
    }
    // The retention counts from the upload, or from a later forward that carries it.
    let since = max(upload.createdAt, newestCarrier)
    guard now - since <= .seconds(configuration.mediaRetentionDays * 86_400) else {
      // Past the retention: the bytes go now, if no sweep took them yet.
      await dropMedia(upload.mediaKey)
      throw ServiceError(
        .gone,
        "This media is older than the server keeps media (\(configuration.mediaRetentionDays) "
          + "days); its text and thumbnail stay.")
    }
    let seconds = APILimits.mediaURLSeconds
    return .json(
      200,
      MediaDownload(
        url: media.getURL(
          key: upload.mediaObjectKey, contentType: upload.contentType, expires: seconds, now: now),
        expiresAt: (now + .seconds(seconds)).rfc3339, byteCount: upload.byteCount,
        contentType: upload.contentType))
  }

  /// Deletes, in one pass: the bytes of media past the retention (the message and its
  /// thumbnail stay; a download says 410), and uploads never completed or never sent in a
  /// message a day after they began (bytes and all). `chat-server` runs it every hour; it
  /// returns how many uploads it touched.
  @discardableResult
  public func sweepMedia(at now: Timestamp) async -> Int {
    guard let media else { return 0 }
    let swept: [MediaUpload]
    do {
      swept = try await store.sweepMedia(
        now: now, retention: .seconds(configuration.mediaRetentionDays * 86_400),
        grace: .seconds(86_400))
    } catch {
      log.write(LogRecord(.warning, "media_sweep_failed", [("detail", "\(error)")]))
      return 0
    }
    for upload in swept {
      do {
        try await media.delete(key: upload.mediaObjectKey, uploadId: nil)
        try await media.delete(key: upload.incomingKey, uploadId: upload.uploadId)
      } catch {
        metrics.mediaDeletesFailed += 1
        log.write(LogRecord(.warning, "media_delete_failed", [("detail", "\(error)")]))
      }
    }
    if !swept.isEmpty {
      log.write(LogRecord(.info, "media_swept", [("uploads", "\(swept.count)")]))
    }
    return swept.count
  }

  /// Deletes the bytes of a deleted message's media, or of media past the retention. A failure is logged and counted: the
  /// message is deleted either way, and no one can download the bytes any more (`download`
  /// answers only for a message that is not deleted).
  func dropMedia(_ key: String) async {
    guard let media else { return }
    do {
      try await media.delete(key: MediaUpload.mediaObjectKey(key), uploadId: nil)
    } catch {
      metrics.mediaDeletesFailed += 1
      log.write(LogRecord(.warning, "media_delete_failed", [("detail", "\(error)")]))
    }
  }

  /// What API.md says a message's media looks like, before the store compares it with the
  /// upload: a thumbnail of at most 10,240 bytes (base64 JPEG), an image's dimensions.
  static func checkShape(of media: Media) throws(ServiceError) {
    guard UUIDText.canonical(media.key) != nil else {
      throw ServiceError.invalid("media.key must be the key of a completed upload of yours.")
    }
    guard media.sha256.utf8.count == 64, Hex.decode(media.sha256) != nil else {
      throw ServiceError.badRequest("media.sha256 must be 64 hexadecimal digits.")
    }
    if let thumbnail = media.thumbnail {
      guard let bytes = Data(base64Encoded: thumbnail) else {
        throw ServiceError.badRequest("media.thumbnail must be base64.")
      }
      guard bytes.count <= APILimits.maxThumbnailBytes else {
        throw ServiceError.invalid(
          "media.thumbnail may be \(APILimits.maxThumbnailBytes) bytes at most.")
      }
    }
    if media.kind == .image {
      guard let width = media.width, let height = media.height,
        (1...APILimits.maxImageSide).contains(width), (1...APILimits.maxImageSide).contains(height)
      else {
        throw ServiceError.badRequest(
          "An image needs width and height, 1 to \(APILimits.maxImageSide).")
      }
    }
  }
}
