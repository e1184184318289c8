import ChatAPI
import ChatDomain
import Support

/// The upload steps of a message with media, run by the outbox before it posts the message
/// (API.md Part 2, "Media"; seed 003's "the outbox gets dependent steps"): create the upload,
/// send its parts straight to the object store through the presigned URLs, complete it; then
/// the outbox posts the message with the key. Each step is saved as it ends (the key, the bytes
/// the store confirmed, the completion), so a killed app or a cut connection resumes: it asks
/// the server which parts the store has (`GET /v1/media/uploads/{key}`, fresh URLs) and sends
/// only the others. A part is a plain idempotent `PUT`, so sending one twice makes one object;
/// the message is posted with its client message ID, so it is made once.
///
/// Failures are the outbox's: temporary ones (offline, timeout, 5xx, an expired URL's 403)
/// keep the message sending and the queue paused; a refusal (413: too large; 422 at
/// completion: size or sha256 do not match, and the store dropped the bytes; a 403 on a URL
/// handed out minutes before) fails the message alone, and a tapped retry uploads again from
/// the start.
struct MediaUpload: Sendable {
  let context: EngineContext

  private var store: MessageStore { context.store }

  /// The media to post `message` with, its key that of a completed upload; nil when the
  /// message has none (or lost it: deleted meanwhile, so it is posted without).
  func run(for message: MessageRecord) async throws(RequestFailure) -> Media? {
    let id = message.clientID
    let conversation = message.conversationID
    guard let upload = try await stored(message) else { return nil }
    if upload.done { return upload.media }
    guard let objects = context.objects, let folder = store.media, let file = upload.file else {
      throw .rejected(
        status: 0, code: "media_unavailable", message: "this device cannot upload media")
    }
    var media = upload.media
    var key = upload.key
    var parts: [UploadPart] = []
    var received: [Int: String] = [:]
    /// When the URLs in `parts` were handed out.
    var issued = context.clock.uptime()
    if let resumed = key {
      do {
        let status = try await context.api.uploadStatus(resumed)
        if status.complete {
          return try await completed(media, key: resumed, message)
        }
        parts = status.parts
        issued = context.clock.uptime()
        for part in status.received { received[part.number] = part.etag }
      } catch .rejected(404, _, _) {
        // Swept by the server (unfinished for a day) or never known: start again.
        key = nil
        try await save { try await store.forgetUpload(id, in: conversation, sender: context.me) }
      }
    }
    if key == nil {
      let created = try await context.api.createUpload(
        CreateUpload(
          kind: media.kind, contentType: media.contentType, byteCount: media.byteCount,
          sha256: media.sha256, fileName: media.fileName))
      key = created.mediaKey
      parts = created.parts
      issued = context.clock.uptime()
      try await save {
        try await store.saveUploadStarted(
          id, in: conversation, sender: context.me, key: created.mediaKey)
      }
      context.log.write(LogRecord(.info, "media.upload_started", [("parts", "\(parts.count)")]))
    }
    guard let key else { return nil }
    var sent = parts.filter { received[$0.number] != nil }.reduce(0) { $0 + $1.byteCount }
    if sent > 0 {
      context.log.write(
        LogRecord(.info, "media.upload_resumed", [("parts_held", "\(received.count)")]))
    }
    for part in parts.sorted(by: { $0.number < $1.number }) where received[part.number] == nil {
      let bytes: [UInt8]
      do {
        bytes = try folder.read(file, offset: part.offset, count: part.byteCount)
      } catch {
        throw .rejected(status: 0, code: "media_unreadable", message: error.description)
      }
      guard bytes.count == part.byteCount else {
        throw .rejected(
          status: 0, code: "media_changed",
          message: "the file on this device no longer has the size it was sent with")
      }
      received[part.number] = try await put(
        bytes, to: part.url, objects: objects,
        fresh: context.clock.uptime() - issued < Self.freshURL)
      sent += part.byteCount
      try await save {
        try await store.saveUploadProgress(id, in: conversation, sender: context.me, sent: sent)
      }
    }
    let list = received.keys.sorted().map { ReceivedPart(number: $0, etag: received[$0]!) }
    do {
      _ = try await context.api.completeUpload(key, parts: list)
    } catch .rejected(422, let code, let why) {
      // The store dropped the bytes: a retry starts a new upload.
      try await save { try await store.forgetUpload(id, in: conversation, sender: context.me) }
      throw .rejected(status: 422, code: code, message: why)
    }
    media.key = key
    return try await completed(media, key: key, message)
  }

  /// How long after it was handed out a URL the store refuses (403) is taken as refused for
  /// good rather than expired (they live 15 minutes).
  static let freshURL: Duration = .seconds(600)

  /// One part, `PUT` to its presigned URL; the store's ETag for it. `fresh`: the URL was
  /// handed out recently, so a 403 is the store refusing, not the URL expiring.
  private func put(_ bytes: [UInt8], to url: String, objects: any ObjectTransfer, fresh: Bool)
    async throws(RequestFailure) -> String
  {
    let response: APIResponse
    do {
      response = try await objects.send(ObjectRequest(method: "PUT", url: url, body: bytes))
    } catch {
      throw APIClient.map(error)
    }
    switch response.status {
    case 200:
      guard let etag = response.headers["ETag"], !etag.isEmpty else {
        throw .malformedReply("the object store answered a part without an ETag")
      }
      return etag
    case 403 where fresh:
      // A URL handed out minutes ago: the store refuses the upload (its credentials, its
      // policy). Retrying would hold the conversation's queue for ever.
      throw .rejected(
        status: 403, code: "object_store_refused",
        message: "the object store refused the upload (HTTP 403)")
    case 401, 403:
      // A URL that expired while the queue waited: the next attempt asks for fresh ones.
      throw .unavailable(status: response.status, retryAfter: nil)
    default:
      throw APIClient.classify(response, retryPolicy: context.retryPolicy)
    }
  }

  private func completed(_ media: Media, key: String, _ message: MessageRecord)
    async throws(RequestFailure) -> Media
  {
    var media = media
    media.key = key
    try await save {
      try await store.saveUploadCompleted(
        message.clientID, in: message.conversationID, sender: context.me, key: key)
    }
    context.log.write(LogRecord(.info, "media.upload_completed"))
    return media
  }

  private func stored(_ message: MessageRecord) async throws(RequestFailure) -> UploadRecord? {
    do {
      return try await store.upload(
        of: message.clientID, in: message.conversationID, sender: context.me)
    } catch {
      throw .malformedReply("the upload's state could not be read: \(error)")
    }
  }

  /// A step's record that could not be saved is a temporary failure: the step runs again.
  private func save(_ body: () async throws -> Void) async throws(RequestFailure) {
    do {
      try await body()
    } catch {
      throw .malformedReply("the upload's progress could not be saved: \(error)")
    }
  }
}
