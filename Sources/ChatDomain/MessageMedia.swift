import ChatIdentifiers

/// A photo or document a message carries, as the screen shows it (API.md Part 2, "Media"):
/// what it is, its thumbnail, and whether its bytes are on this device.
public struct MessageMedia: Hashable, Sendable {
  public enum Kind: String, Hashable, Sendable {
    case image, file
  }

  public let kind: Kind
  public let contentType: String
  public let byteCount: Int
  /// Images: the size as sent (at most 1,600 px on the long edge from this engine).
  public let width: Int?
  public let height: Int?
  /// Documents: the name the sender picked.
  public let fileName: String?
  /// Images: a small JPEG (at most 10,240 bytes), on the device from the start.
  public let thumbnail: [UInt8]?
  /// Where the full bytes are on this device; nil until downloaded (or once evicted from the
  /// cache).
  public let localPath: String?
  /// My message's upload while it runs: the bytes the object store has confirmed, of
  /// `byteCount`. Nil when there is nothing to upload (sent, or not mine).
  public let uploadedBytes: Int?

  public init(
    kind: Kind, contentType: String, byteCount: Int, width: Int? = nil, height: Int? = nil,
    fileName: String? = nil, thumbnail: [UInt8]? = nil, localPath: String? = nil,
    uploadedBytes: Int? = nil
  ) {
    self.kind = kind
    self.contentType = contentType
    self.byteCount = byteCount
    self.width = width
    self.height = height
    self.fileName = fileName
    self.thumbnail = thumbnail
    self.localPath = localPath
    self.uploadedBytes = uploadedBytes
  }
}

/// What a user picked to send: a photo (compressed on the device before it is saved) or a
/// document (sent as it is).
public enum Attachment: Hashable, Sendable {
  /// A JPEG or PNG file.
  case photo(path: String)
  /// Any file; `contentType` nil guesses it from the name's extension.
  case file(path: String, contentType: String? = nil)
}

/// When others' media download by themselves (seed 003: "automatically by a user setting"),
/// while the app is in the foreground; otherwise on demand.
public enum MediaAutoDownload: String, Hashable, Sendable, CaseIterable {
  case always
  /// Only while the network is not metered (a phone's cellular data, a hotspot).
  case unmetered
  case never
}

/// Sending and fetching photos and documents. The message with media is saved at once (it
/// shows at once, offline too); its upload is a step of the outbox, resumed where it stopped.
public protocol MediaRepository: Sendable {
  /// Prepares the attachment (a photo is compressed to at most 1,600 px and about 200 KB, with
  /// a thumbnail; a document is copied as it is), saves the message as sending, then the
  /// outbox uploads and posts it. Throws for what can never be sent (unreadable, not an
  /// image, too large, a caption too long, an unknown conversation).
  @discardableResult
  func send(_ attachment: Attachment, caption: String, in conversation: ConversationID)
    async throws(ChatError) -> MessageID

  /// The full bytes of a message's media on this device: downloaded (resuming a download cut
  /// before) and checked against the sender's sha256 unless already here. Returns the path.
  /// `progress` hears (bytes held, of total) as they come.
  func download(
    _ message: MessageID, in conversation: ConversationID,
    progress: (@Sendable (Int, Int) -> Void)?
  ) async throws(ChatError) -> String

  /// The user's setting for downloading others' media by themselves (`never` until set).
  func autoDownload() async -> MediaAutoDownload

  /// Changes the setting; it is kept in the database. Turned on, what is already held starts
  /// downloading.
  func setAutoDownload(_ setting: MediaAutoDownload) async throws(ChatError)
}
