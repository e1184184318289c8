import ChatLoad
import Foundation
import Glibc

/// A server in a process of its own (our echo server, a peer: Node.js `ws`, `openssl
/// s_server`, Python `websockets`): started, its port read from a line it prints, stopped by
/// closing its standard input.
struct ServerProcess {
  let name: String
  let process: ChildProcess
  let port: Int

  /// Starts `executable` and reads its standard output line by line until `portLine` finds
  /// the port in one; what it prints afterwards is read and dropped, so it never blocks on a
  /// full pipe. Throws when it ends (or closes its output) first.
  static func start(
    name: String, executable: String, arguments: [String], environment: [String: String] = [:],
    portLine: (String) -> Int? = { $0.hasPrefix("port ") ? Int($0.dropFirst(5)) : nil }
  ) throws -> ServerProcess {
    var variables = ProcessInfo.processInfo.environment
    for (key, value) in environment { variables[key] = value }
    let process = try ChildProcess(
      executable, arguments, environment: variables, input: .pipe, output: .pipe)
    guard let reader = process.output else { throw BenchError("\(name): no output") }
    var text = ""
    while true {
      let data = reader.availableData
      guard !data.isEmpty else { break }
      text += String(decoding: data, as: UTF8.self)
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      for line in lines.dropLast() {
        guard let port = portLine(String(line)) else { continue }
        Thread { while !reader.availableData.isEmpty {} }.start()
        return ServerProcess(name: name, process: process, port: port)
      }
    }
    process.send(SIGKILL)
    process.wait()
    throw BenchError("\(name) did not start: \(text.prefix(200))")
  }

  /// Closes its standard input and gives it 5 s to end; then SIGKILL (`openssl s_server`
  /// ignores SIGTERM, and its standard input too).
  func stop() {
    try? process.input?.close()
    let deadline = Nanos.now() + 5_000_000_000
    while process.isRunning && Nanos.now() < deadline { usleep(10_000) }
    process.send(SIGKILL)
    process.wait()
  }
}
