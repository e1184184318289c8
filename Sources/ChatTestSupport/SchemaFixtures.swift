import Foundation

/// The databases older versions made, committed under `Tests/Fixtures/<version>/` by
/// `scripts/make-schema-fixtures` (its README there says what each holds). Migration tests open
/// a copy with today's code; the committed file is never opened, so it stays as old code left it.
public enum SchemaFixtures {
  /// The repository's `Tests/Fixtures`, found from this source file's place.
  public static let folder = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Tests/Fixtures").path

  /// Every fixture version committed (`v1`, `v2`, …), oldest first: each schema that shipped.
  public static var versions: [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.compactMap { name -> (Int, String)? in
      guard name.first == "v", let number = Int(name.dropFirst()) else { return nil }
      return (number, name)
    }.sorted { $0.0 < $1.0 }.map(\.1)
  }

  /// What to do when today's migrations are not all in the newest fixture.
  public static var newFixtureAdvice: String {
    let next = (versions.last.flatMap { Int($0.dropFirst()) } ?? 0) + 1
    return "the schema changed without a new fixture: run scripts/make-schema-fixtures v\(next)"
      + " before the change ships (with the code that makes the new schema)"
  }

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
