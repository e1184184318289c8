import ChatDomain

/// A bubble's photo or document, as the screen shows it.
public struct MediaRow: Equatable, Sendable {
  public let isPhoto: Bool
  /// "Photo · 1600×1200" or "File · report.pdf · 3.0 MB".
  public let label: String
  /// A photo's thumbnail (a small JPEG), drawn in the bubble at once, offline too.
  public let thumbnail: [UInt8]?
  /// My upload while it runs ("uploading 42%"); "saved here" when the bytes are on this
  /// device; nil otherwise.
  public let status: String?

  public init(isPhoto: Bool, label: String, thumbnail: [UInt8]?, status: String?) {
    self.isPhoto = isPhoto
    self.label = label
    self.thumbnail = thumbnail
    self.status = status
  }

  public init(_ media: MessageMedia) {
    isPhoto = media.kind == .image
    label =
      isPhoto
      ? "Photo · \(media.width ?? 0)×\(media.height ?? 0)"
      : "File · \(media.fileName ?? "document") · \(ByteCount.text(media.byteCount))"
    thumbnail = media.thumbnail
    if let sent = media.uploadedBytes {
      status = "uploading \(sent * 100 / max(media.byteCount, 1))%"
    } else {
      status = media.localPath == nil ? nil : "saved here"
    }
  }

  /// What a conversation list shows for a message with this media and no caption.
  public static func preview(_ media: MessageMedia) -> String {
    media.kind == .image ? "Photo" : "File: \(media.fileName ?? "document")"
  }
}

/// Sizes as people read them: 512 B, 14.2 KB, 3.0 MB.
public enum ByteCount {
  public static func text(_ bytes: Int) -> String {
    switch bytes {
    case ..<1_024: return "\(bytes) B"
    case ..<(1_024 * 1_024): return tenths(bytes, 1_024) + " KB"
    default: return tenths(bytes, 1_048_576) + " MB"
    }
  }

  private static func tenths(_ bytes: Int, _ unit: Int) -> String {
    let tenths = (bytes * 10 + unit / 2) / unit
    return "\(tenths / 10).\(tenths % 10)"
  }
}
