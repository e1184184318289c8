import Foundation
import Testing
import Wire

/// The certificates of `scripts/make-test-certificates`, made once per test process in a
/// temporary folder with the `openssl` command (no key is ever committed): `ca.pem` (the root a
/// client is told to trust), `server.pem`/`.key` (localhost, 127.0.0.1, ::1), and the hostile
/// ones the script lists.
public enum TestCertificates {
  private static let folder = Result { () throws -> String in
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("chat-tls-\(UUID().uuidString.prefix(8).lowercased())").path
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
    let script = repository.appendingPathComponent("scripts/make-test-certificates").path
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [script, folder]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestCertificateError(status: process.terminationStatus)
    }
    return folder
  }

  /// The file `name` (`ca.pem`, `server.key`, …) of the test certificates.
  public static func path(_ name: String) throws -> String {
    try folder.get() + "/" + name
  }

  /// A server context presenting `name`.pem (a chain) with `name`.key.
  public static func server(_ name: String = "server") throws -> TLSContext {
    try TLSContext(
      configuration: .makeServerConfiguration(
        certificateChainFile: path("\(name).pem"), privateKeyFile: path("\(name).key")))
  }

  /// A client context trusting only the certificates in `name` (the test root CA by default).
  public static func client(trusting name: String = "ca.pem") throws -> TLSContext {
    try TLSContext(configuration: .makeClientConfiguration(trustRoots: .file(path(name))))
  }
}

/// `scripts/make-test-certificates` failed (or `s_server` did not start).
public struct TestCertificateError: Error {
  public let status: Int32

  public init(status: Int32) {
    self.status = status
  }
}

/// Makes the test certificates before a suite's tests run, on a thread of its own (about a
/// second of `openssl`, which must not hold a thread of the cooperative pool).
public struct TestCertificatesTrait: SuiteTrait, TestScoping {
  @concurrent public func provideScope(
    for test: Test, testCase: Test.Case?,
    performing function: @Sendable @concurrent () async throws -> Void
  ) async throws {
    try await withCheckedThrowingContinuation { (made: CheckedContinuation<Void, any Error>) in
      Thread { made.resume(with: Result { _ = try TestCertificates.path("ca.pem") }) }.start()
    }
    try await function()
  }
}

extension Trait where Self == TestCertificatesTrait {
  /// The suite's tests use `TestCertificates`.
  public static var testCertificates: Self { TestCertificatesTrait() }
}
