import ChatAPI
import ChatDomain
import ChatIdentifiers
import Foundation
import Support

/// Photos and documents on this device (seed 003, "send photos and documents"): preparing and
/// saving a message with media (the outbox then runs its upload, `MediaUpload`), and fetching
/// others' bytes on demand into the media folder, resumed with `Range` where a download was
/// cut, checked against the sender's sha256, within a size-bounded cache.
///
/// The CPU and file work (compressing a photo, hashing, copying a document in) runs where the
/// `MediaProcessing` seam runs it: off the engine's executor in apps, on the simulation's
/// stepped executor in the simulation.
actor MediaTransfers: MediaRepository {
  nonisolated let context: EngineContext
  nonisolated var unownedExecutor: UnownedSerialExecutor {
    context.executor.asUnownedSerialExecutor()
  }

  private let messages: MessagesRepository
  private let cacheBytes: Int
  /// Whether the network is metered now (the `NetworkMonitor`'s word).
  private let isMetered: @Sendable () -> Bool
  /// One download per message at a time (two screens asking share the file).
  private let downloads = KeyedLock<MessageID>()
  /// The automatic downloads' watcher, while the engine is started.
  private var watcher: Task<Void, Never>?
  /// What the automatic downloads tried since the engine started: each once (one that failed
  /// is left to a tap, or to the next start).
  private var tried: Set<MessageID> = []
  /// The setting, once read.
  private var setting: MediaAutoDownload?
  private var isStarted = false

  init(
    context: EngineContext, messages: MessagesRepository, cacheBytes: Int,
    isMetered: @escaping @Sendable () -> Bool
  ) {
    self.context = context
    self.messages = messages
    self.cacheBytes = cacheBytes
    self.isMetered = isMetered
  }

  private var store: MessageStore { context.store }

  /// The largest photo file read to be compressed (the decoder's own limits refuse what would
  /// not fit in memory once decoded).
  static let maxPhotoFileBytes = 64 * 1024 * 1024
  /// The most bytes one ranged `GET` of a download asks for.
  static let downloadPieceBytes = APILimits.mediaPartBytes

  // MARK: - Sending

  func send(_ attachment: Attachment, caption: String, in conversation: ConversationID)
    async throws(ChatError) -> MessageID
  {
    try MessagesRepository.check(caption: caption)
    let (processing, folder) = try tools()
    let id = context.ids.next()
    let base = MediaFolder.baseName(conversation, context.me, id)
    let name: String
    switch attachment {
    case .photo: name = base + ".jpg"
    case .file(let path, _): name = base + Self.fileExtension(of: Self.fileName(of: path))
    }
    // A delete committed meanwhile sweeps the files no row names: not this one, until saved.
    await store.reserveMediaFile(name)
    let saved: Result<Media, ChatError>
    do {
      saved = .success(
        try await prepareAndSave(
          attachment, as: name, id: id, caption: caption, in: conversation,
          processing: processing, folder: folder))
    } catch {
      folder.remove(name)
      saved = .failure(error)
    }
    await store.unreserveMediaFile(name)
    let media = try saved.get()
    context.log.write(
      LogRecord(
        .info, "media.saved", [("kind", media.kind.rawValue), ("bytes", "\(media.byteCount)")]))
    return id
  }

  /// Compresses the photo or copies the document in as `name`, hashes it, and saves the
  /// message with it.
  private func prepareAndSave(
    _ attachment: Attachment, as name: String, id: MessageID, caption: String,
    in conversation: ConversationID, processing: any MediaProcessing, folder: MediaFolder
  ) async throws(ChatError) -> Media {
    let media: Media
    switch attachment {
    case .photo(let path):
      let file = try Self.readPhoto(path)
      let photo: PreparedPhoto
      do {
        photo = try await processing.preparePhoto(file)
      } catch {
        throw .invalidInput("\(Self.display(path)): \(error.reason)")
      }
      try Self.storage { () throws(MediaFolder.Failure) in try folder.write(photo.jpeg, as: name) }
      media = Media(
        key: "", kind: .image, contentType: "image/jpeg", byteCount: photo.jpeg.count,
        sha256: try await digest(name, folder, processing), width: photo.width,
        height: photo.height, thumbnail: Data(photo.thumbnail).base64EncodedString())
    case .file(let path, let contentType):
      _ = try Self.documentSize(path)
      let fileName = Self.fileName(of: path)
      do {
        try await processing.perform { try folder.copy(path, as: name) }
      } catch let failure as MediaFolder.Failure {
        throw failure.isFull ? .deviceFull : .storage(failure.description)
      } catch {
        throw .storage("\(error)")
      }
      // The size of the copy, which is what is hashed and sent (the original may still grow).
      let size = try Self.copiedSize(name, in: folder)
      media = Media(
        key: "", kind: .file,
        contentType: contentType ?? Self.contentType(ofFileNamed: fileName), byteCount: size,
        sha256: try await digest(name, folder, processing), fileName: fileName)
    }
    var record = messages.newMessage(caption, in: conversation, id: id)
    record.media = media
    record.mediaFile = name
    try await messages.save(record)
    return media
  }

  private func tools() throws(ChatError) -> (any MediaProcessing, MediaFolder) {
    guard let processing = context.mediaProcessing, context.objects != nil else {
      throw .invalidInput("this engine was opened without media transports")
    }
    guard let folder = store.media else {
      throw .invalidInput("media needs a database file (an engine in memory has no media folder)")
    }
    return (processing, folder)
  }

  private func digest(_ name: String, _ folder: MediaFolder, _ processing: any MediaProcessing)
    async throws(ChatError) -> String
  {
    do {
      return try await processing.sha256(ofFileAt: folder.file(name))
    } catch {
      throw .storage(error.reason)
    }
  }

  /// A photo file's bytes, refused before reading when it is no file or far too large.
  private static func readPhoto(_ path: String) throws(ChatError) -> [UInt8] {
    let size = try fileSize(path)
    guard size <= maxPhotoFileBytes else {
      throw .invalidInput(
        "\(display(path)) is too large for a photo (\(size) bytes, at most \(maxPhotoFileBytes))")
    }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw .invalidInput("cannot read \(display(path))")
    }
    return [UInt8](data)
  }

  /// A document's size, refused when over the server's default limit (it would answer 413).
  private static func documentSize(_ path: String) throws(ChatError) -> Int {
    let size = try fileSize(path)
    guard size <= APILimits.defaultMaxFileBytes else {
      throw .invalidInput(
        "\(display(path)) is too large (\(size) bytes, at most \(APILimits.defaultMaxFileBytes))")
    }
    guard size > 0 else { throw .invalidInput("\(display(path)) is empty") }
    return size
  }

  private static func copiedSize(_ name: String, in folder: MediaFolder) throws(ChatError) -> Int {
    guard let size = folder.size(of: name), size > 0,
      size <= APILimits.defaultMaxFileBytes
    else {
      throw .invalidInput("the document changed while it was being copied in")
    }
    return size
  }

  private static func fileSize(_ path: String) throws(ChatError) -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw .invalidInput("cannot read \(display(path)): no such file")
    }
    guard (info.st_mode & S_IFMT) == S_IFREG else {
      throw .invalidInput("\(display(path)) is not a regular file")
    }
    return Int(info.st_size)
  }

  /// A path as an error message shows it: its last component.
  private static func display(_ path: String) -> String {
    (path as NSString).lastPathComponent
  }

  private static func storage(_ body: () throws(MediaFolder.Failure) -> Void) throws(ChatError) {
    do {
      try body()
    } catch {
      throw error.isFull ? .deviceFull : .storage(error.description)
    }
  }

  // MARK: - Downloading by themselves

  func autoDownload() async -> MediaAutoDownload {
    if let setting { return setting }
    let saved = await context.readOrLog { try await store.autoDownloadSetting() } ?? nil
    let setting = saved.flatMap(MediaAutoDownload.init(rawValue:)) ?? .never
    self.setting = setting
    return setting
  }

  func setAutoDownload(_ setting: MediaAutoDownload) async throws(ChatError) {
    do {
      try await store.saveAutoDownloadSetting(setting.rawValue)
    } catch {
      throw error.chatError
    }
    self.setting = setting
    tried = []
    if isStarted { await watch() }
  }

  /// The app came to the foreground: others' media download by themselves as the setting
  /// says, what is held first, then what arrives.
  func start() async {
    isStarted = true
    await watch()
  }

  func stop() {
    isStarted = false
    watcher?.cancel()
    watcher = nil
  }

  /// Starts the watcher of the store's changes unless the setting is `never` (or this engine
  /// has no media transports).
  private func watch() async {
    guard watcher == nil, await autoDownload() != .never, context.objects != nil,
      store.media != nil
    else { return }
    let changes = await store.changes()
    // The awaits above let `stop()` or another `watch()` in: look again.
    guard isStarted, watcher == nil else { return }
    watcher = context.spawn { [weak self] in
      await self?.fetchWanted(in: nil)
      for await change in changes {
        guard let self else { return }
        await self.fetchWanted(in: change.conversations.sorted())
      }
    }
  }

  /// Downloads, one at a time, others' media not yet here in `conversations` (nil: all held),
  /// when the setting allows it now.
  private func fetchWanted(in conversations: [ConversationID]?) async {
    switch await autoDownload() {
    case .never: return
    case .unmetered where isMetered(): return
    case .always, .unmetered: break
    }
    let scope: [ConversationID]
    if let conversations {
      scope = conversations
    } else {
      scope = await context.readOrLog { try await store.conversations().map(\.id) } ?? []
    }
    let wanted =
      await context.readOrLog { try await store.mediaToFetch(in: scope, me: context.me) } ?? []
    for (id, conversation) in wanted where tried.insert(id).inserted {
      guard watcher != nil, !Task.isCancelled else { return }
      do {
        _ = try await download(id, in: conversation, progress: nil)
      } catch {
        context.log.write(LogRecord(.info, "media.auto_download_failed", [("error", "\(error)")]))
      }
    }
  }

  // MARK: - Downloading

  func download(
    _ id: MessageID, in conversation: ConversationID,
    progress: (@Sendable (Int, Int) -> Void)?
  ) async throws(ChatError) -> String {
    let (processing, folder) = try tools()
    return try await downloads.withLock(id) { () async throws(ChatError) -> String in
      let found: (media: Media, file: String?, sender: UserID)?
      do {
        found = try await store.media(of: id, in: conversation)
      } catch {
        throw ChatError(error)
      }
      guard let (media, file, sender) = found else {
        throw .notFound("a photo or document in message \(id)")
      }
      let now = context.clock.now().date
      if let file, folder.size(of: file) != nil {
        try await saveFile(file, of: id, in: conversation, sender: sender, at: now)
        return folder.file(file)
      }
      guard !media.key.isEmpty else {
        throw .notFound("the bytes of message \(id) (its upload has not completed)")
      }
      let base = MediaFolder.baseName(conversation, sender, id)
      let partial = base + ".part"
      try await fetch(media, into: partial, folder: folder, progress: progress)
      let sha256: String
      do {
        sha256 = try await processing.sha256(ofFileAt: folder.file(partial))
      } catch {
        throw .storage("\(error)")
      }
      guard sha256 == media.sha256 || context.knownBugs.contains(.trustDownloads) else {
        folder.remove(partial)
        context.log.write(LogRecord(.warning, "media.download_corrupt"))
        throw .rejected(
          code: "media_corrupt",
          message: "the downloaded bytes do not match the sender's sha256; try again")
      }
      let name = base + Self.fileExtension(of: media)
      try Self.storage { () throws(MediaFolder.Failure) in try folder.move(partial, to: name) }
      try await saveFile(name, of: id, in: conversation, sender: sender, at: now)
      context.log.write(LogRecord(.info, "media.downloaded", [("bytes", "\(media.byteCount)")]))
      await trimCache(folder)
      return folder.file(name)
    }
  }

  /// Fills `partial` up to the media's size in ranged `GET`s from its size on (what an earlier
  /// cut download left is kept), asking the server for a URL and again when one expires.
  private func fetch(
    _ media: Media, into partial: String, folder: MediaFolder,
    progress: (@Sendable (Int, Int) -> Void)?
  ) async throws(ChatError) {
    guard let objects = context.objects else { return }
    var held = folder.size(of: partial) ?? 0
    if held > media.byteCount {
      folder.remove(partial)
      held = 0
    }
    if held > 0 {
      context.log.write(LogRecord(.info, "media.download_resumed", [("from", "\(held)")]))
    }
    var url: String?
    var refreshed = false
    progress?(held, media.byteCount)
    while held < media.byteCount {
      if url == nil {
        do {
          url = try await context.api.mediaDownload(media.key).url
        } catch .rejected(404, _, _) {
          throw .notFound("the media of this message on the server")
        } catch .rejected(410, _, _) {
          throw .rejected(
            code: "gone", message: "the media is past the server's retention; its bytes are gone")
        } catch {
          throw error.chatError
        }
      }
      let last = min(held + Self.downloadPieceBytes, media.byteCount) - 1
      let response: APIResponse
      do {
        response = try await objects.send(
          ObjectRequest(method: "GET", url: url ?? "", headers: ["Range": "bytes=\(held)-\(last)"]))
      } catch {
        throw APIClient.map(error).chatError
      }
      switch response.status {
      case 206,
        200 where held == 0:
        let piece = response.status == 200 ? Array(response.body.prefix(last + 1)) : response.body
        guard !piece.isEmpty, piece.count <= last - held + 1 else {
          throw .unavailable(retryAfterSeconds: nil)
        }
        try Self.storage { () throws(MediaFolder.Failure) in try folder.append(piece, to: partial) }
        held += piece.count
        refreshed = false
        progress?(held, media.byteCount)
      case 403 where !refreshed:
        // The URL expired during a long download: one fresh one.
        url = nil
        refreshed = true
      default:
        throw APIClient.classify(response, retryPolicy: context.retryPolicy).chatError
      }
    }
  }

  private func saveFile(
    _ name: String, of id: MessageID, in conversation: ConversationID, sender: UserID, at now: Date
  ) async throws(ChatError) {
    do {
      try await store.saveMediaFile(id, in: conversation, sender: sender, file: name, at: now)
    } catch {
      throw error.chatError
    }
  }

  /// Others' media beyond the cache's size lose their files, least recently viewed first.
  private func trimCache(_ folder: MediaFolder) async {
    do {
      for name in try await store.trimMediaCache(to: cacheBytes, me: context.me) {
        folder.remove(name)
      }
    } catch {
      context.log.write(LogRecord(.error, "media.cache_trim_failed", [("error", "\(error)")]))
    }
  }
}
