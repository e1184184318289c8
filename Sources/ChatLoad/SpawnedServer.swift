import Foundation
import Glibc

/// A `chat-server` process started for a benchmark: dev mode, rate limit off, a free port, a
/// temporary data folder, its log in that folder. Stopped with SIGTERM (a graceful stop), and
/// the folder removed.
public final class SpawnedServer {
  public let port: Int
  public let pid: Int32
  public let dataFolder: String
  private let process: ChildProcess

  /// Starts `binary` (e.g. `.build/release/chat-server`) with `extraArguments` added, and waits
  /// for the line that says where it listens.
  public init(binary: String, extraArguments: [String] = []) throws(LoadError) {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("chat-load-\(UUID().uuidString.prefix(8))").path
    dataFolder = folder
    let arguments =
      [
        "--port", "0", "--dev", "--rate-limit", "off", "--data", folder + "/data", "--log",
        folder + "/server.log",
      ] + extraArguments
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    } catch {
      throw LoadError("cannot start \(binary): \(error)")
    }
    let process = try ChildProcess(binary, arguments, output: .pipe)
    self.process = process
    pid = process.pid
    // Read byte by byte up to the first line: the pipe stays open for the server's later lines.
    var line: [UInt8] = []
    guard let handle = process.output else { throw LoadError("\(binary): no output") }
    while true {
      let byte = handle.readData(ofLength: 1)
      guard let first = byte.first else {
        process.send(SIGKILL)
        process.wait()
        throw LoadError(
          "\(binary) exited before listening: \(String(decoding: line, as: UTF8.self))")
      }
      if first == UInt8(ascii: "\n") { break }
      line.append(first)
    }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("chat-server listening on "),
      let portText = text.split(separator: ":").last, let port = Int(portText)
    else {
      process.send(SIGTERM)
      process.wait()
      throw LoadError("unexpected first line from \(binary): \(text)")
    }
    self.port = port
    // Keep draining its output so it never blocks on a full pipe.
    handle.readabilityHandler = { handle in _ = handle.availableData }
  }

  /// SIGTERM, wait for the graceful stop, remove the data folder.
  public func stop() {
    if process.isRunning {
      process.send(SIGTERM)
      process.wait()
    }
    try? FileManager.default.removeItem(atPath: dataFolder)
  }
}
