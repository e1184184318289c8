import Foundation
import Glibc
import Synchronization
import TLSTestSupport
import Testing

@testable import Wire

/// The test server of `startTestServer` over TLS, with every TLS failure and rejection it
/// reports, as streams.
struct TLSTestServer {
  let server: HTTPServer
  let port: Int
  let failures: AsyncStream<TLSFailure>
  let rejections: AsyncStream<HTTPRejection>

  init(
    certificate: String = "server",
    configure: (inout HTTPServer.Configuration) -> Void = { _ in }
  ) throws {
    let context = try TestCertificates.server(certificate)
    let (failures, failed) = AsyncStream<TLSFailure>.makeStream()
    let (rejections, rejected) = AsyncStream<HTTPRejection>.makeStream()
    (server, port) = try startTestServer { configuration in
      configuration.tls = context
      configuration.onTLSFailure = { failed.yield($0) }
      configuration.onRejected = { rejected.yield($0) }
      configure(&configuration)
    }
    self.failures = failures
    self.rejections = rejections
  }

  /// The next TLS failure the server reports (within 10 s).
  func nextFailure() async throws -> TLSError? {
    let failures = failures
    return try await withTimeout(seconds: 60) { await failures.first { _ in true }?.error }
  }
}

/// Opens a WebSocket on `url` trusting `client`, sends `text`, returns the first reply.
func echoOverTLS(_ url: String, client: TLSContext, text: String = "hello") async throws
  -> String?
{
  try await withTimeout(seconds: 60) {
    let socket = try await WebSocketClient.connect(
      to: url, headers: ["Authorization": "Bearer good"], connectTimeout: .seconds(60), tls: client)
    try socket.send(text: text)
    var iterator = socket.messages.makeAsyncIterator()
    let reply = await iterator.next()
    socket.close()
    await socket.waitUntilClosed()
    return reply
  }
}

/// The TLS error a `wss://` connect to `url` fails with, nil when it connects (a bound of 10 s).
func tlsFailure(connecting url: String, client: TLSContext?, connectTimeout: Duration = .seconds(5))
  async throws -> WebSocketClientError?
{
  try await withTimeout(seconds: 60) { () -> WebSocketClientError? in
    do {
      let socket = try await WebSocketClient.connect(
        to: url, headers: ["Authorization": "Bearer good"], connectTimeout: connectTimeout,
        tls: client)
      socket.close()
      return nil
    } catch let error as WebSocketClientError {
      return error
    }
  }
}

/// The first five bytes of a TLS record carrying a ClientHello: a handshake that has begun and
/// then stalls.
let partialClientHello: [UInt8] = [0x16, 0x03, 0x01, 0x02, 0x00]

/// `openssl s_server` on a free loopback port, an independent TLS server for our client; it
/// exits after one connection.
final class OpenSSLServer {
  let port: Int
  private let process: Process

  /// Starts it, waiting for it to listen on a thread of its own.
  /// - Parameter arguments: more `s_server` options (`-tls1_1`, …).
  static func start(certificate: String, key: String, arguments: [String] = []) async throws
    -> OpenSSLServer
  {
    let started = await onOwnThread {
      Result {
        try UncheckedBox(OpenSSLServer(certificate: certificate, key: key, arguments: arguments))
      }
    }
    return try started.get().value
  }

  private init(certificate: String, key: String, arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments =
      [
        "s_server", "-accept", "127.0.0.1:0", "-naccept", "1", "-cert",
        try TestCertificates.path(certificate), "-key", try TestCertificates.path(key),
        "-cert_chain", try TestCertificates.path("intermediate.pem"),
      ] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = Pipe()
    try process.run()
    self.process = process
    // s_server prints "ACCEPT 127.0.0.1:PORT" once it listens.
    var text = ""
    while !text.contains("\n") || !text.contains("ACCEPT") {
      let data = output.fileHandleForReading.availableData
      guard !data.isEmpty else { break }
      text += String(decoding: data, as: UTF8.self)
    }
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT") }),
      let port = Int(line.split(separator: ":").last ?? "")
    else {
      kill(process.processIdentifier, SIGKILL)
      throw TestCertificateError(status: -1)
    }
    self.port = port
  }

  /// SIGKILL: `s_server` ignores SIGTERM.
  deinit {
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  }
}

/// Hands a value that is not `Sendable` from the thread that made it to the one that waits for
/// it.
struct UncheckedBox<Value>: @unchecked Sendable {
  // @unchecked: the value is made on one thread and only used after the hand-over, by the
  // waiter; the maker keeps no reference to it.
  let value: Value

  init(_ value: Value) {
    self.value = value
  }
}
