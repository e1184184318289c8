/// The fixed limits of the contract (API.md), the same on both sides: the client refuses what
/// the server would, before saving it.
public enum APILimits {
  /// Unicode scalars (`unicodeScalars.count`, not grapheme clusters) in a text.
  public static let maxTextScalars = 4_096
  /// Members of a conversation, the creator included.
  public static let maxMembers = 256
  /// A title given with `PATCH /v1/conversations/{id}`: 1–200 characters.
  public static let maxTitleCharacters = 200
  /// Items per page.
  public static let pageSizes = 1...200
  /// Items in a page when `limit` is not given.
  public static let defaultPageSize = 50
  /// Characters of a title (Part 2's title change).
  public static let titleLength = 1...200
  /// The request body size a server refuses above, by default.
  public static let defaultMaxBodyBytes = 64 * 1024
  /// Media: the largest part of an upload (one presigned `PUT`); a larger upload goes in
  /// parts of exactly this size, the last one smaller.
  public static let mediaPartBytes = 8 * 1024 * 1024
  /// Media: an image as uploaded (devices compress first), by default.
  public static let defaultMaxImageBytes = 8 * 1024 * 1024
  /// Media: a document, by default.
  public static let defaultMaxFileBytes = 100 * 1024 * 1024
  /// Media: how long a presigned URL lives, in seconds.
  public static let mediaURLSeconds = 15 * 60
  /// Media: the content types an image may have.
  public static let imageContentTypes: Set<String> = ["image/jpeg", "image/png"]
  /// Media: the longest file name, in UTF-8 bytes.
  public static let maxFileNameBytes = 255
  /// Media: an image's inline thumbnail, decoded.
  public static let maxThumbnailBytes = 10_240
  /// Media: the longest side of an image a message may describe (devices send at most 1,600).
  public static let maxImageSide = 12_000
  /// Pins: the most messages of a conversation pinned at once (Part 3).
  public static let maxPins = 10
}
