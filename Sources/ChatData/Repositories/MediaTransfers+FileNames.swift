import ChatAPI
import Foundation

// The names and types of media files: what a document is sent as, and what a downloaded file
// is kept as.

extension MediaTransfers {
  /// The name a document is sent with: the path's last component, cut to the contract's
  /// 255 UTF-8 bytes at a character boundary.
  static func fileName(of path: String) -> String {
    var name = (path as NSString).lastPathComponent
    while name.utf8.count > APILimits.maxFileNameBytes { name.removeFirst() }
    return name.isEmpty ? "file" : name
  }

  /// `.pdf` for `report.pdf`: kept on the stored copy so an app opening it knows its type;
  /// only letters and digits, else nothing.
  static func fileExtension(of name: String) -> String {
    let ext = (name as NSString).pathExtension.lowercased()
    guard !ext.isEmpty, ext.count <= 8,
      ext.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
    else { return "" }
    return "." + ext
  }

  static func contentType(ofFileNamed name: String) -> String {
    switch (name as NSString).pathExtension.lowercased() {
    case "pdf": "application/pdf"
    case "txt", "md": "text/plain"
    case "jpg", "jpeg": "image/jpeg"
    case "png": "image/png"
    case "gif": "image/gif"
    case "zip": "application/zip"
    case "json": "application/json"
    case "csv": "text/csv"
    case "mp4": "video/mp4"
    case "mp3": "audio/mpeg"
    default: "application/octet-stream"
    }
  }

  /// A downloaded file's extension: an image's from its content type (never from a name its
  /// sender chose), a document's from its name.
  static func fileExtension(of media: Media) -> String {
    switch (media.kind, media.contentType) {
    case (.image, "image/png"): ".png"
    case (.image, _): ".jpg"
    case (.file, _): fileExtension(of: media.fileName ?? "")
    }
  }
}
