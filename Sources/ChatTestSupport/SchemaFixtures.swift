import Foundation

/// The databases older versions made, committed under `Tests/Fixtures/<version>/` by
/// `scripts/make-schema-fixtures` (its README there says what each holds). Migration tests open
/// a copy with today's code; the committed file is never opened, so it stays as old code left it.
public enum SchemaFixtures {
  /// The repository's `Tests/Fixtures`, found from this source file's place.
  public static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/Fixtures").path

  /// Copies `version`'s fixture `name` to `destination` (a path), mode 0600, and returns it.
  @discardableResult
  public static func copy(_ version: String, _ name: String, to destination: String) throws
    -> String
  {
    let source = "\(folder)/\(version)/\(name)"
    try FileManager.default.copyItem(atPath: source, toPath: destination)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: destination)
    return destination
  }
}
