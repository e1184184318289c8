import Foundation

/// The search cases every store is tested with (`Tests/Fixtures/search/cases.json`): messages
/// posted in order to one conversation, and what each query must find, newest first.
public struct SearchCases: Decodable, Sendable {
  public struct Case: Decodable, Sendable, CustomStringConvertible {
    public var query: String
    /// 1-based positions of the messages found, newest first (= their sequences).
    public var expect: [Int]
    public var why: String

    public var description: String { "\(query): \(why)" }
  }

  public var messages: [String]
  public var cases: [Case]

  public static func load() -> SearchCases {
    let path = "\(SchemaFixtures.folder)/search/cases.json"
    do {
      return try JSONDecoder().decode(
        SearchCases.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    } catch {
      preconditionFailure("\(path): \(error)")
    }
  }
}
