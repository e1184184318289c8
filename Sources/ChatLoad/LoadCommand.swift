import Foundation

/// `chat-load`: the command-line face of `SendLoad`.
public enum LoadCommand {
  public static let help = """
    USAGE: chat-load (--port N | --spawn BINARY) [options]

    Measures durable sends per second against a chat server: CLIENTS users sign in (dev-login),
    pair up in one-to-one conversations, and each sends the next message on its own keep-alive
    connection as soon as the previous one is answered. Counts 201 answers in the measured
    window, and reports latency, every status seen, and the CPU time of the generator (and of
    the server, when its pid is known) so a run shows whether the generator was the bottleneck.

    OPTIONS:
      --host ADDRESS      Server address, numeric or localhost (default 127.0.0.1).
      --port N            Server port: a server already running with --dev --rate-limit off.
      --spawn BINARY      Start this chat-server binary instead (free port, temporary data
                          folder, --dev --rate-limit off, log to a file), stop it afterwards.
      --server-arg ARG    With --spawn, one more argument for the server (repeatable).
      --server-pid PID    With --port, the server's pid, to report its CPU time.
      --clients N         Concurrent clients (default 100).
      --duration S        Measured seconds (default 10).
      --warmup S          Seconds of load before measuring (default 2).
      --threads N         Generator threads (default 1).
      --text-bytes N      Bytes of each message's text (default 64).
      --json              Print the report as JSON instead of text.
      -h, --help          Show this help.
    Exit status: 0 when every answer was 201 and the server's count of new messages matches
    this run's; 1 otherwise; 64 for a wrong command line.
    """

  public static func main(arguments: [String]) -> Int32 {
    var values: [String: String] = [:]
    var serverArguments: [String] = []
    var json = false
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      switch argument {
      case "-h", "--help":
        print(help)
        return 0
      case "--json":
        json = true
      case "--host", "--port", "--spawn", "--server-pid", "--clients", "--duration", "--warmup",
        "--threads", "--text-bytes", "--server-arg":
        guard index < arguments.count else { return usage("\(argument) needs a value") }
        if argument == "--server-arg" {
          serverArguments.append(arguments[index])
        } else {
          values[String(argument.dropFirst(2))] = arguments[index]
        }
        index += 1
      default:
        return usage("unknown option \(argument)")
      }
    }
    func number(_ name: String, _ fallback: Int, _ range: ClosedRange<Int>) -> Int? {
      guard let text = values[name] else { return fallback }
      guard let value = Int(text), range.contains(value) else { return nil }
      return value
    }
    guard let clients = number("clients", 100, 1...10_000),
      let duration = number("duration", 10, 1...3_600),
      let warmup = number("warmup", 2, 0...600),
      let threads = number("threads", 1, 1...64),
      let textBytes = number("text-bytes", 64, 1...4_096),
      let port = number("port", 0, 0...65_535)
    else { return usage("a numeric option is out of range") }
    var spawned: SpawnedServer?
    var configuration = SendLoadConfiguration(
      host: values["host"] ?? "127.0.0.1", port: port, clients: clients,
      warmup: .seconds(warmup), duration: .seconds(duration), threads: threads,
      textBytes: textBytes, serverPID: values["server-pid"].flatMap { Int32($0) })
    if let binary = values["spawn"] {
      do throws(LoadError) {
        let server = try SpawnedServer(binary: binary, extraArguments: serverArguments)
        spawned = server
        configuration.port = server.port
        configuration.serverPID = server.pid
      } catch {
        FileHandle.standardError.write(Data("chat-load: \(error)\n".utf8))
        return 1
      }
    } else if port == 0 {
      return usage("say where the server is: --port N, or --spawn BINARY")
    }
    defer { spawned?.stop() }
    do throws(LoadError) {
      let report = try SendLoad.run(configuration)
      if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = (try? encoder.encode(report)) ?? Data()
        print(String(decoding: data, as: UTF8.self))
      } else {
        print(report.summary)
      }
      return report.isClean ? 0 : 1
    } catch {
      FileHandle.standardError.write(Data("chat-load: \(error)\n".utf8))
      return 1
    }
  }

  private static func usage(_ message: String) -> Int32 {
    FileHandle.standardError.write(
      Data("chat-load: \(message)\nRun chat-load --help for the options.\n".utf8))
    return 64
  }
}
