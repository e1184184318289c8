import Foundation

/// Runs `body` on a new thread named `name` and returns what it returns: for a load driver
/// that blocks while a loop works (so it never holds one of the cooperative pool's threads).
func onThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T)
  async throws -> T
{
  try await withCheckedThrowingContinuation { continuation in
    let thread = Thread {
      do {
        continuation.resume(returning: try body())
      } catch {
        continuation.resume(throwing: error)
      }
    }
    thread.name = name
    thread.start()
  }
}
