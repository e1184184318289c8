/// A load that could not run, or an answer it could not use: the message says which.
public struct LoadError: Error, Sendable, CustomStringConvertible {
  public let description: String

  init(_ description: String) {
    self.description = description
  }
}
